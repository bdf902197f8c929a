import Foundation

/// Reads the freshness lifetime out of a `Cache-Control` header.
enum CacheControl {
    /// `max-age` in seconds; `no-store`/`no-cache` without a max-age mean 0; nil when the header says nothing.
    static func maxAge(_ header: String?) -> Int? {
        guard let header else { return nil }
        var sawNoCache = false
        for directive in header.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1)
            let name = parts[0].trimmingCharacters(in: .whitespaces).lowercased()
            if name == "max-age", parts.count == 2 {
                let value = parts[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                if let seconds = Int(value), seconds >= 0 { return seconds }
            }
            if name == "no-store" || name == "no-cache" { sawNoCache = true }
        }
        return sawNoCache ? 0 : nil
    }
}
