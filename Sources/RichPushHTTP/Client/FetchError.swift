import RichPushCore
/// Everything that can go wrong while fetching one media URL.
///
/// Every case names the URL it concerns. Descriptions strip the query string and any user-info, because
/// campaign URLs often carry signatures or tokens there.
public enum FetchError: RichPushError, Equatable {
    /// The URL (or a redirect hop) resolved to a denied address. `ip` is kept for tests and debugging only: the
    /// description never names it, or a blocked fetch would tell a sender what an internal name resolves to.
    case blockedAddress(url: String, ip: String)
    case blockedHost(url: String)
    case httpStatus(url: String, code: Int)
    case tooLarge(url: String, limit: Int)
    /// The body's first bytes show audio or video (`AttachmentSniffer`), and it outgrew that kind's own cap (code
    /// `too_large`). Images, and bytes of no known kind, fail with `tooLarge`. Make one with `tooLarge(url:kind:limit:)`.
    case tooLargeForKind(url: String, kind: AttachmentKind, limit: Int)
    /// The body's first bytes show a kind the request does not accept (audio or video for a story page).
    case kindNotAccepted(url: String, kind: AttachmentKind, accepted: [AttachmentKind])
    case deadlineExceeded(url: String)
    case stalled(url: String)
    case tooManyRedirects(url: String)
    case unsupportedScheme(url: String)
    case credentialsInURL(url: String)
    case invalidURL(url: String)
    case tls(url: String, reason: String)
    case dns(url: String, reason: String)
    case connection(url: String, reason: String)
    case localFile(url: String, reason: String)
    case cancelled(url: String)
    /// The configuration itself is unusable (bad CIDR, bad local origin mapping, libcurl refused to start).
    case invalidConfiguration(reason: String)
    /// A fault of this process, not of the origin: libcurl could not allocate or refused a transfer.
    case internalFailure(url: String, reason: String)

    /// Stable snake_case identifier used in JSON output.
    public var code: ErrorCode {
        switch self {
        case .blockedAddress: .blockedAddress
        case .blockedHost: "blocked_host"
        case .httpStatus: "http_status"
        case .tooLarge, .tooLargeForKind: "too_large"
        case .kindNotAccepted: "media_kind_not_accepted"
        case .deadlineExceeded: .deadlineExceeded
        case .stalled: "stalled"
        case .tooManyRedirects: "too_many_redirects"
        case .unsupportedScheme: "unsupported_scheme"
        case .credentialsInURL: "credentials_in_url"
        case .invalidURL: .invalidURL
        case .tls: "tls"
        case .dns: .nameResolution
        case .connection: "connection"
        case .localFile: "local_file"
        case .cancelled: .cancelled
        case .invalidConfiguration: .invalidConfiguration
        case .internalFailure: "internal_error"
        }
    }

    /// The failure for a body over `limit`, the cap of its `kind`: `tooLarge` for an image, as before kinds had caps.
    static func tooLarge(url: String, kind: AttachmentKind, limit: Int) -> FetchError {
        kind == .image ? .tooLarge(url: url, limit: limit) : .tooLargeForKind(url: url, kind: kind, limit: limit)
    }

    /// True for faults of our own (configuration, allocation, library misuse). Such a failure says nothing about
    /// the origin: it is never remembered as a negative entry, and callers log it at error level.
    public var isLocalFault: Bool {
        switch self {
        case .invalidConfiguration, .internalFailure: true
        default: false
        }
    }

    /// True when retrying later would give the same answer (4xx, blocked, invalid, too large), so a caller may
    /// remember the failure as a negative cache entry. Timeouts, 5xx and network trouble are transient, and a
    /// local fault is never the origin's answer.
    public var isPermanent: Bool {
        switch self {
        case .httpStatus(_, let code): (400..<500).contains(code) && code != 408 && code != 429
        case .blockedAddress, .blockedHost, .tooLarge, .tooLargeForKind, .kindNotAccepted, .tooManyRedirects,
             .unsupportedScheme, .credentialsInURL,
             .invalidURL, .localFile:
            true
        case .deadlineExceeded, .stalled, .tls, .dns, .connection, .cancelled, .invalidConfiguration, .internalFailure:
            false
        }
    }

    public var description: String {
        switch self {
        case .blockedAddress(let url, _):
            "\(URLRedaction.redact(url)): blocked internal address (private, loopback or reserved)"
        case .blockedHost(let url):
            "\(URLRedaction.redact(url)): host is not in the allowed host list"
        case .httpStatus(let url, let code):
            "\(URLRedaction.redact(url)): origin answered HTTP \(code)"
        case .tooLarge(let url, let limit):
            "\(URLRedaction.redact(url)): body exceeds the \(limit)-byte limit"
        case .tooLargeForKind(let url, let kind, let limit):
            "\(URLRedaction.redact(url)): \(kind.rawValue) body exceeds the \(limit)-byte limit for \(kind.rawValue)"
        case .kindNotAccepted(let url, let kind, let accepted):
            "\(URLRedaction.redact(url)): the source is \(kind.rawValue), and only "
                + accepted.map(\.rawValue).joined(separator: " or ") + " is accepted here"
        case .deadlineExceeded(let url):
            "\(URLRedaction.redact(url)): deadline exceeded before the download finished"
        case .stalled(let url):
            "\(URLRedaction.redact(url)): transfer stalled (no bytes received for too long)"
        case .tooManyRedirects(let url):
            "\(URLRedaction.redact(url)): too many redirects"
        case .unsupportedScheme(let url):
            "\(URLRedaction.redact(url)): only http and https URLs are fetched"
        case .credentialsInURL(let url):
            "\(URLRedaction.redact(url)): URLs with embedded credentials are refused"
        case .invalidURL(let url):
            "\(URLRedaction.redact(url)): not a valid URL"
        case .tls(let url, let reason):
            "\(URLRedaction.redact(url)): TLS failure: \(reason)"
        case .dns(let url, let reason):
            "\(URLRedaction.redact(url)): name resolution failed: \(reason)"
        case .connection(let url, let reason):
            "\(URLRedaction.redact(url)): connection failed: \(reason)"
        case .localFile(let url, let reason):
            "\(URLRedaction.redact(url)): local origin refused: \(reason)"
        case .cancelled(let url):
            "\(URLRedaction.redact(url)): fetch cancelled"
        case .invalidConfiguration(let reason):
            "invalid fetch configuration: \(reason)"
        case .internalFailure(let url, let reason):
            "\(URLRedaction.redact(url)): internal error (not the origin's fault): \(reason)"
        }
    }
}

extension ErrorCode {
    /// A name that resolved to a denied address (`FetchError.blockedAddress`).
    package static let blockedAddress: ErrorCode = "blocked_address"
    /// A name that did not resolve (`FetchError.dns`).
    package static let nameResolution: ErrorCode = "dns"
}
