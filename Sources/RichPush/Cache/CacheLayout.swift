import Foundation

/// Paths of everything under the cache root. Keys are validated hex digests, so no path built here can escape the
/// root.
struct CacheLayout: Sendable {
    let root: String

    init(root: URL) {
        var path = root.standardizedFileURL.path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        self.root = path
    }

    var objectsDirectory: String { root + "/objects" }
    var negativeDirectory: String { root + "/negative" }
    var temporaryDirectory: String { root + "/tmp" }
    var locksDirectory: String { root + "/locks" }
    var quarantineDirectory: String { root + "/quarantine" }
    var retiredDirectory: String { root + "/retired" }
    var countersPath: String { root + "/counters.json" }
    var countersLockPath: String { root + "/locks/counters.lock" }

    func relativeObjectPath(_ key: CacheKey, fileExtension: String) -> String {
        "objects/\(key.shardPath)/\(key.hexDigest).\(fileExtension)"
    }

    func objectDirectory(_ key: CacheKey) -> String { objectsDirectory + "/" + key.shardPath }
    func sidecarPath(_ key: CacheKey) -> String { objectDirectory(key) + "/\(key.hexDigest).json" }
    func negativeDirectory(_ key: CacheKey) -> String { negativeDirectory + "/" + key.shardPath }
    func negativePath(_ key: CacheKey) -> String { negativeDirectory(key) + "/\(key.hexDigest).json" }
    /// Record of an object file that a re-render in another format replaced while jobs still reference it.
    func retiredPath(_ key: CacheKey, fileExtension: String) -> String {
        retiredDirectory + "/\(key.shardPath)/\(key.hexDigest).\(fileExtension).json"
    }
    func lockPath(_ key: CacheKey) -> String { locksDirectory + "/\(key.hexDigest).lock" }
    func absolutePath(_ relativePath: String) -> String { root + "/" + relativePath }

    /// A fresh temporary file name. Names start with the key so `verify` can tell (by trying the key's lock)
    /// whether a live writer still owns the file.
    func temporaryPath(for key: CacheKey, kind: String) -> String {
        temporaryDirectory + "/\(key.hexDigest).\(CacheFileSystem.uniqueSuffix()).\(kind).part"
    }

    func temporaryPath(named name: String) -> String {
        temporaryDirectory + "/\(name).\(CacheFileSystem.uniqueSuffix()).part"
    }
}

/// JSON coding for sidecars: sorted keys and ISO 8601 dates with milliseconds (whole seconds would break
/// sub-second TTLs).
enum CacheJSON {
    private static let secondsStyle = Date.ISO8601FormatStyle()
    private static let fractionalStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// `2026-12-03T09:04:07.123Z`, from whole milliseconds computed here, so the text never depends on how a
    /// formatter rounds a binary fraction.
    static func format(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        var seconds = milliseconds / 1000
        var fraction = milliseconds % 1000
        if fraction < 0 {
            seconds -= 1
            fraction += 1000
        }
        var text = Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(secondsStyle)
        if text.hasSuffix("Z") { text.removeLast() }
        let digits = String(fraction)
        return text + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    /// Parses what `format` writes (or whole seconds), rounded to whole milliseconds like `Date.storedPrecision`.
    static func parse(_ text: String) -> Date? {
        guard let date = (try? fractionalStyle.parse(text)) ?? (try? secondsStyle.parse(text)) else { return nil }
        return Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
    }

    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(format(date))
        }
        return encoder
    }

    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = parse(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 date: \(text)")
            }
            return date
        }
        return decoder
    }

    static func encode<Value: Encodable>(_ value: Value, path: String) throws(CacheError) -> Data {
        do {
            return try encoder().encode(value)
        } catch {
            throw CacheError.io(path: path, reason: "encoding JSON: \(error)")
        }
    }

    static func decode<Value: Decodable>(_ type: Value.Type, from data: Data) -> Value? {
        try? decoder().decode(type, from: data)
    }
}
