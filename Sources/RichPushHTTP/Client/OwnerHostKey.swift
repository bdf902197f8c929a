import Foundation

/// One owner's transfers to one host, counted as libcurl counts its per-host limit: by host name and port.
struct OwnerHostKey: Hashable {
    let owner: FetchOwner
    let host: String

    /// Nil for a transfer without an owner (service requests, tools), which only libcurl's own limit bounds.
    init?(owner: FetchOwner?, url: String) {
        guard let owner, let components = URLComponents(string: url), let host = components.host?.lowercased() else {
            return nil
        }
        self.owner = owner
        let port = components.port ?? (components.scheme?.lowercased() == "https" ? 443 : 80)
        self.host = "\(host):\(port)"
    }
}
