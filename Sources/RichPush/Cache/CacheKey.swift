import Foundation

/// The content address of one rendered variant: SHA-256 of the normalized source URL, the variant description and
/// the renderer version, each separated by a newline. Computing one costs a single SHA-256 over a short string.
public struct CacheKey: Sendable, Hashable, Codable, CustomStringConvertible {
    /// 64 lowercase hexadecimal digits.
    public let hexDigest: String

    public init(sourceURL: String, variant: String, rendererVersion: String) {
        hexDigest = SHA256.hexDigest(of: Self.normalize(sourceURL) + "\n" + variant + "\n" + rendererVersion)
    }

    /// Accepts exactly 64 lowercase hexadecimal digits (a digest read back from a file name or a sidecar); the digest
    /// becomes part of file paths, so anything else is refused.
    public init?(hexDigest: String) {
        guard Self.isValidDigest(hexDigest) else { return nil }
        self.hexDigest = hexDigest
    }

    public var description: String { hexDigest }

    /// The digest's first two byte pairs, used as the two directory levels (`ab/cd`).
    var shardPath: String {
        let characters = Array(hexDigest)
        return String(characters[0..<2]) + "/" + String(characters[2..<4])
    }

    static func isValidDigest(_ text: String) -> Bool {
        let utf8 = text.utf8
        return utf8.count == 64 && utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard Self.isValidDigest(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a SHA-256 hex digest")
        }
        hexDigest = text
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hexDigest)
    }

    /// Normalizes a URL for keying: scheme and host lowercased, the scheme's default port dropped, the fragment
    /// dropped, an empty path written as `/`; user info, path and query are kept byte for byte (a query often carries
    /// a signature that changes the content). Text without `scheme://` only loses its fragment.
    public static func normalize(_ url: String) -> String {
        let trimmed = url.trimmingCharacters(in: .whitespacesAndNewlines)
        let withoutFragment = trimmed.firstIndex(of: "#").map { String(trimmed[..<$0]) } ?? trimmed
        guard let schemeEnd = withoutFragment.range(of: "://") else { return withoutFragment }
        let scheme = withoutFragment[..<schemeEnd.lowerBound].lowercased()
        let afterScheme = withoutFragment[schemeEnd.upperBound...]
        let authorityEnd = afterScheme.firstIndex { $0 == "/" || $0 == "?" } ?? afterScheme.endIndex
        let authority = afterScheme[..<authorityEnd]
        var rest = String(afterScheme[authorityEnd...])
        if !rest.hasPrefix("/") { rest = "/" + rest }

        var userInfo = ""
        var hostAndPort = Substring(authority)
        if let at = authority.lastIndex(of: "@") {
            userInfo = String(authority[...at])
            hostAndPort = authority[authority.index(after: at)...]
        }
        var host = hostAndPort
        var port: Substring = ""
        // A colon after the closing bracket of an IPv6 literal (or any colon without brackets) starts the port.
        let searchStart = hostAndPort.lastIndex(of: "]") ?? hostAndPort.startIndex
        if let colon = hostAndPort[searchStart...].lastIndex(of: ":") {
            host = hostAndPort[..<colon]
            port = hostAndPort[hostAndPort.index(after: colon)...]
        }
        let defaultPorts: [String: String] = ["http": "80", "https": "443", "ftp": "21", "ws": "80", "wss": "443"]
        let trimmedPort = port.drop { $0 == "0" }
        var portText = ""
        if !port.isEmpty && defaultPorts[scheme] != String(trimmedPort) {
            portText = ":" + port
        }
        return scheme + "://" + userInfo + host.lowercased() + portText + rest
    }
}
