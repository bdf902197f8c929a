import Foundation

/// One page of a ListObjectsV2 answer. The document is flat and machine-made, so a scan for the few elements used
/// is enough (FoundationXML would pull libxml2 into the binary for this alone).
struct ListBucketPage: Sendable {
    struct Entry: Sendable {
        var key: String
        var size: Int
        var lastModified: Date?
    }

    var objects: [Entry] = []
    var isTruncated = false
    var nextContinuationToken: String?

    init(xml data: Data) {
        let document = String(decoding: data, as: UTF8.self)
        var rest = document[...]
        let dates = DateParser()
        while let open = rest.range(of: "<Contents>"), let close = rest.range(of: "</Contents>", range: open.upperBound..<rest.endIndex) {
            let block = rest[open.upperBound..<close.lowerBound]
            if let key = Self.firstValue(of: "Key", in: block) {
                objects.append(
                    Entry(
                        key: key, size: Self.firstValue(of: "Size", in: block).flatMap { Int($0) } ?? 0,
                        lastModified: Self.firstValue(of: "LastModified", in: block).flatMap(dates.parse)))
            }
            rest = rest[close.upperBound...]
        }
        isTruncated = Self.firstValue(of: "IsTruncated", in: document[...]) == "true"
        nextContinuationToken = Self.firstValue(of: "NextContinuationToken", in: document[...])
    }

    /// S3 writes `2026-12-03T12:44:03.000Z`; some compatible services leave out the fraction. Formatters are costly
    /// to make, so one pair serves a whole page.
    private struct DateParser {
        let withFraction = ISO8601DateFormatter()
        let withoutFraction = ISO8601DateFormatter()

        init() {
            withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            withoutFraction.formatOptions = [.withInternetDateTime]
        }

        func parse(_ text: String) -> Date? {
            withFraction.date(from: text) ?? withoutFraction.date(from: text)
        }
    }

    /// The unescaped text of the first `<name>…</name>` in `text`.
    static func firstValue(of name: String, in text: Substring) -> String? {
        guard let open = text.range(of: "<\(name)>"),
            let close = text.range(of: "</\(name)>", range: open.upperBound..<text.endIndex)
        else { return nil }
        return unescape(text[open.upperBound..<close.lowerBound])
    }

    private static func unescape(_ text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        return text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
