/// Limits and policy for a `Fetcher`. Defaults are safe for untrusted campaign URLs.
public struct FetchConfiguration: Sendable {
    /// Largest body accepted (after content decoding when `acceptEncoding` is on).
    public var maximumBytes: Int
    /// Redirect hops followed before failing with `tooManyRedirects`.
    public var maximumRedirects: Int
    /// Upper bound for TCP+TLS connection setup (further capped by the request's remaining budget).
    public var connectTimeout: Duration
    /// A transfer that receives no bytes for this long fails with `stalled`.
    public var stallTimeout: Duration
    /// CIDRs reachable despite the SSRF deny list (e.g. `127.0.0.1/32` for tests). Opens only what they name.
    public var allowNetworks: [IPNetwork]
    /// When set, only these hosts (lowercased; `.example.com` also matches subdomains) may be fetched,
    /// including every redirect hop.
    public var allowedHosts: Set<String>?
    /// URL prefixes served from local directories instead of the network.
    public var localOrigins: [LocalOrigin]
    /// Send `Accept-Encoding` for every encoding libcurl can decode. Off by default: the byte cap then bounds the
    /// wire bytes, and nothing needs decompressing.
    public var acceptEncoding: Bool
    /// Per-host connection cap of the shared connection pool.
    public var maximumConnectionsPerHost: Int
    /// Sent as `User-Agent` on every request.
    public var userAgent: String
    /// Retry once (connection reset, 429, 502, 503, 504) when the deadline allows.
    public var retryEnabled: Bool
    /// PEM file of extra trusted CAs (private PKI, tests); nil uses the system store. Verification stays on.
    public var certificateAuthorityPath: String?

    public init(
        maximumBytes: Int = 10 * 1024 * 1024,
        maximumRedirects: Int = 3,
        connectTimeout: Duration = .seconds(5),
        stallTimeout: Duration = .seconds(5),
        allowNetworks: [IPNetwork] = [],
        allowedHosts: Set<String>? = nil,
        localOrigins: [LocalOrigin] = [],
        acceptEncoding: Bool = false,
        maximumConnectionsPerHost: Int = 8,
        userAgent: String = "RichPush/1.0",
        retryEnabled: Bool = true,
        certificateAuthorityPath: String? = nil
    ) {
        self.maximumBytes = maximumBytes
        self.maximumRedirects = maximumRedirects
        self.connectTimeout = connectTimeout
        self.stallTimeout = stallTimeout
        self.allowNetworks = allowNetworks
        self.allowedHosts = allowedHosts
        self.localOrigins = localOrigins
        self.acceptEncoding = acceptEncoding
        self.maximumConnectionsPerHost = maximumConnectionsPerHost
        self.userAgent = userAgent
        self.retryEnabled = retryEnabled
        self.certificateAuthorityPath = certificateAuthorityPath
    }
}
