import Foundation
import RichPushCore

/// Where an object-storage cache lives (`s3://bucket/prefix`), how to reach it, and the credentials libcurl signs
/// with. Building URLs costs a little string work and no I/O.
public struct ObjectStorageLocation: Sendable, Hashable {
    public var bucket: String
    /// Key prefix without leading or trailing slashes; may be empty.
    public var prefix: String
    /// `scheme://host[:port]` of an S3-compatible service (MinIO, moto, Ceph); nil means AWS in `region`.
    public var endpoint: String?
    package var signing: RequestSigning

    /// Parses `s3://bucket[/prefix]`. Throws `invalidConfiguration` naming the problem for anything else: another
    /// scheme, a bucket name S3 would refuse, an endpoint that is not http(s), or missing credentials.
    public init(
        cacheURL: String, endpoint: String?, region: String, accessKeyID: String?, secretAccessKey: String?,
        sessionToken: String? = nil
    ) throws(CacheError) {
        guard cacheURL.hasPrefix("s3://") else {
            throw .invalidConfiguration(reason: "cache URL must be s3://bucket/prefix: \(cacheURL)")
        }
        let rest = cacheURL.dropFirst("s3://".count)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let bucket = String(rest[..<slash])
        guard Self.isValidBucketName(bucket) else {
            throw .invalidConfiguration(
                reason: "\(cacheURL): bucket name must be 3-63 lowercase letters, digits, dots or hyphens")
        }
        var prefix = rest[slash...].drop { $0 == "/" }
        while prefix.hasSuffix("/") { prefix.removeLast() }
        guard !prefix.contains("?"), !prefix.contains("#") else {
            throw .invalidConfiguration(reason: "\(cacheURL): the prefix must not contain ? or #")
        }
        if let endpoint {
            let lowered = endpoint.lowercased()
            guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
                throw .invalidConfiguration(reason: "S3 endpoint must be http(s)://host[:port]: \(endpoint)")
            }
        }
        guard !region.isEmpty, region.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
            throw .invalidConfiguration(reason: "S3 region is not valid: \(region)")
        }
        guard let accessKeyID, !accessKeyID.isEmpty, let secretAccessKey, !secretAccessKey.isEmpty else {
            throw .invalidConfiguration(
                reason: "S3 credentials missing: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
        }
        self.bucket = bucket
        self.prefix = String(prefix)
        self.endpoint = endpoint.map { text in
            var trimmed = text
            while trimmed.hasSuffix("/") { trimmed.removeLast() }
            return trimmed
        }
        self.signing = RequestSigning(
            accessKeyID: accessKeyID, secretAccessKey: secretAccessKey, sessionToken: sessionToken, region: region,
            service: "s3")
    }

    /// `s3://bucket/prefix`, for logs and reports (never the credentials).
    public var description: String { "s3://\(bucket)" + (prefix.isEmpty ? "" : "/\(prefix)") }

    /// The object key of a path relative to the store (`objects/ab/cd/<key>.jpg` → `<prefix>/objects/…`).
    func objectKey(_ relativePath: String) -> String {
        prefix.isEmpty ? relativePath : prefix + "/" + relativePath
    }

    /// The path relative to the store of an object key listed under the prefix, or nil for a key outside it.
    func relativePath(ofObjectKey key: String) -> String? {
        if prefix.isEmpty { return key }
        guard key.hasPrefix(prefix + "/") else { return nil }
        return String(key.dropFirst(prefix.count + 1))
    }

    /// The request URL of an object key (or of the bucket, for an empty key), with an optional query that the
    /// caller has already encoded. Path-style with a custom endpoint or a dotted bucket name (a virtual host with
    /// dots breaks the TLS wildcard); virtual-hosted on AWS otherwise.
    func url(objectKey key: String, query: String? = nil) -> String {
        let path = Self.encodePath(key)
        let base: String
        if let endpoint {
            base = endpoint + "/" + bucket + (key.isEmpty ? "" : "/" + path)
        } else if bucket.contains(".") {
            base = "https://s3.\(signing.region).amazonaws.com/" + bucket + (key.isEmpty ? "" : "/" + path)
        } else {
            base = "https://\(bucket).s3.\(signing.region).amazonaws.com/" + path
        }
        guard let query, !query.isEmpty else { return base }
        return base + "?" + query
    }

    /// RFC 3986 percent-encoding of everything but unreserved characters (and `/` in paths): the form SigV4's
    /// canonical request expects, so the path libcurl signs is the path S3 checks.
    static func encode(_ text: String, keepingSlashes: Bool = false) -> String {
        var result = ""
        for byte in text.utf8 {
            let isUnreserved = (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
            if isUnreserved || (keepingSlashes && byte == 0x2F) {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                result += String(format: "%%%02X", byte)
            }
        }
        return result
    }

    static func encodePath(_ key: String) -> String { encode(key, keepingSlashes: true) }

    static func isValidBucketName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (3...63).contains(bytes.count) else { return false }
        let allowed = bytes.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2E || $0 == 0x2D }
        let alphanumeric: (UInt8) -> Bool = { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) }
        return allowed && alphanumeric(bytes[0]) && alphanumeric(bytes[bytes.count - 1]) && !name.contains("..")
    }
}
