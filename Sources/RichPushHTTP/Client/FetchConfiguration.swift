import RichPushCore
/// Limits and policy for a `Fetcher`. Defaults are safe for untrusted campaign URLs.
public struct FetchConfiguration: Sendable {
    /// Largest image body accepted (after content decoding when `acceptEncoding` is on), GIF included, and the cap
    /// of any body whose first bytes are no known audio or video format. Audio and video have caps of their own,
    /// chosen by the first bytes while the body arrives (`SniffedByteCap`).
    public var maximumBytes: Int
    /// Largest audio body (MP3, M4A, AIFF, WAV) accepted; Apple's 5 MB by default.
    public var maximumAudioBytes: Int = AttachmentKind.audio.appleByteLimit
    /// Largest video body (MP4, MOV, M4V) accepted; Apple's 50 MB by default.
    public var maximumVideoBytes: Int = AttachmentKind.video.appleByteLimit
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
    /// Connections one job (`FetchRequest.owner`) may hold to one host: half the per-host cap, at least one. A job's
    /// stalled sources then leave the other half to other jobs until the stall timeout frees them.
    public var maximumConnectionsPerHostPerOwner: Int { max(1, maximumConnectionsPerHost / 2) }
    /// Sent as `User-Agent` on every request.
    public var userAgent: String
    /// Retry once (connection reset, 429, 502, 503, 504) when the deadline allows.
    public var retryEnabled: Bool
    /// PEM file of extra trusted CAs (private PKI, tests); nil uses the system store. Verification stays on.
    public var certificateAuthorityPath: String?

    public init(
        maximumBytes: Int = AttachmentKind.image.appleByteLimit,
        maximumRedirects: Int = 3,
        connectTimeout: Duration = .seconds(5),
        stallTimeout: Duration = .seconds(5),
        allowNetworks: [IPNetwork] = [],
        allowedHosts: Set<String>? = nil,
        localOrigins: [LocalOrigin] = [],
        acceptEncoding: Bool = false,
        maximumConnectionsPerHost: Int = 8,
        userAgent: String = "RichPush/" + RichPushInfo.version,
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

extension FetchConfiguration {
    /// The cap of bodies of `kind`.
    public func maximumBytes(for kind: AttachmentKind) -> Int {
        switch kind {
        case .image: maximumBytes
        case .audio: maximumAudioBytes
        case .video: maximumVideoBytes
        }
    }

    /// The caps of the kinds in `accepted` (images when it is empty), for one transfer's `SniffedByteCap`.
    func byteLimits(accepting accepted: Set<AttachmentKind>) -> [AttachmentKind: Int] {
        let kinds = accepted.isEmpty ? [.image] : accepted
        return Dictionary(uniqueKeysWithValues: kinds.map { ($0, maximumBytes(for: $0)) })
    }
}
