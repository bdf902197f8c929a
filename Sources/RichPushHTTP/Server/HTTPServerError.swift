import RichPushCore
/// Why the HTTP server could not start.
package enum HTTPServerError: RichPushError, Equatable {
    case invalidAddress(String)
    case cannotListen(address: String, port: Int, reason: String)

    /// Stable snake_case identifier.
    package var code: ErrorCode {
        switch self {
        case .invalidAddress: "invalid_address"
        case .cannotListen: "cannot_listen"
        }
    }

    /// An address that does not parse stays wrong; a port that is taken may be freed.
    package var isPermanent: Bool {
        switch self {
        case .invalidAddress: true
        case .cannotListen: false
        }
    }

    /// The address and port are this process's configuration.
    package var isLocalFault: Bool { true }

    package var description: String {
        switch self {
        case .invalidAddress(let address): "'\(address)' is not an IPv4 or IPv6 address to listen on"
        case .cannotListen(let address, let port, let reason): "cannot listen on \(address):\(port): \(reason)"
        }
    }
}
