import Foundation
import RichPushCore

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

    /// Hashes the digest's first 16 digits only: equal keys share them, and 64 bits of a SHA-256 spread keys over a
    /// table as well as all 256 do. Every warm job hashes its keys in the store's memories; this is a quarter of the
    /// bytes. Equality still compares the whole digest.
    public func hash(into hasher: inout Hasher) {
        var digest = hexDigest
        digest.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: $0.prefix(16)))) }
    }

    /// The digest's first two byte pairs, used as the two directory levels (`ab/cd`).
    package var shardPath: String {
        let digits = hexDigest.utf8
        return String(decoding: digits.prefix(2), as: UTF8.self) + "/"
            + String(decoding: digits.dropFirst(2).prefix(2), as: UTF8.self)
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
        // Every warm job keys each of its media; campaign URLs are ASCII, and bytes are far cheaper than Characters.
        var text = url
        if let normalized = text.withUTF8({ normalizeASCII($0) }) { return normalized }
        return normalizeUnicode(url)
    }

    /// `normalize` for ASCII text, on bytes; nil for anything else.
    private static func normalizeASCII(_ input: UnsafeBufferPointer<UInt8>) -> String? {
        guard input.allSatisfy({ $0 < 0x80 }) else { return nil }
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
        func text(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: input[range]), as: UTF8.self) }
        func lowered(_ range: Range<Int>, into output: inout [UInt8]) {
            for byte in input[range] { output.append((0x41...0x5A).contains(byte) ? byte | 0x20 : byte) }
        }
        var start = 0
        var end = input.count
        while start < end, isSpace(input[start]) { start += 1 }
        while end > start, isSpace(input[end - 1]) { end -= 1 }
        if let hash = input[start..<end].firstIndex(of: 0x23) { end = hash }
        var schemeEnd: Int?
        var index = start
        while index + 2 < end {
            if input[index] == 0x3A && input[index + 1] == 0x2F && input[index + 2] == 0x2F {
                schemeEnd = index
                break
            }
            index += 1
        }
        guard let schemeEnd else { return text(start..<end) }
        let authorityStart = schemeEnd + 3
        let authorityEnd = input[authorityStart..<end].firstIndex { $0 == 0x2F || $0 == 0x3F } ?? end
        var hostStart = authorityStart
        if let at = input[authorityStart..<authorityEnd].lastIndex(of: 0x40) { hostStart = at + 1 }
        // A colon after the closing bracket of an IPv6 literal (or any colon without brackets) starts the port.
        let searchStart = input[hostStart..<authorityEnd].lastIndex(of: 0x5D) ?? hostStart
        var hostEnd = authorityEnd
        var port = authorityEnd..<authorityEnd
        if let colon = input[searchStart..<authorityEnd].lastIndex(of: 0x3A) {
            hostEnd = colon
            port = (colon + 1)..<authorityEnd
        }

        var output: [UInt8] = []
        output.reserveCapacity(end - start + 1)
        lowered(start..<schemeEnd, into: &output)
        let scheme = String(decoding: output, as: UTF8.self)
        output.append(contentsOf: [0x3A, 0x2F, 0x2F])
        output.append(contentsOf: UnsafeBufferPointer(rebasing: input[authorityStart..<hostStart]))
        lowered(hostStart..<hostEnd, into: &output)
        if !port.isEmpty {
            let significant = input[port].drop { $0 == 0x30 }
            if Self.defaultPorts[scheme] != String(decoding: significant, as: UTF8.self) {
                output.append(0x3A)
                output.append(contentsOf: UnsafeBufferPointer(rebasing: input[port]))
            }
        }
        if authorityEnd == end || input[authorityEnd] != 0x2F { output.append(0x2F) }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: input[authorityEnd..<end]))
        return String(decoding: output, as: UTF8.self)
    }

    private static let defaultPorts: [String: String] = ["http": "80", "https": "443", "ftp": "21", "ws": "80", "wss": "443"]

    /// The general form, for text with non-ASCII characters (and the reference the ASCII form is tested against).
    static func normalizeUnicode(_ url: String) -> String {
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
        let trimmedPort = port.drop { $0 == "0" }
        var portText = ""
        if !port.isEmpty && defaultPorts[scheme] != String(trimmedPort) {
            portText = ":" + port
        }
        return scheme + "://" + userInfo + host.lowercased() + portText + rest
    }
}
