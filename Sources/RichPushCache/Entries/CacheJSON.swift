import Foundation

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

    /// Parses what `format` writes (or whole seconds), rounded to whole milliseconds like `Date.cacheMillisecondPrecision`.
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
