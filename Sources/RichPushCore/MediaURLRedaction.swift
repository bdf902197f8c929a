import Foundation

/// Removes the secrets of media URLs (query strings, fragments, `user:password@`) from a `validate` JSON report
/// (`validate --format json`, `/v1/validate`, `/v1/preview`, `--html`), with `URLRedaction`'s rule, the one the
/// text report applies.
///
/// Every media `source` of the report is redacted wherever it appears (its `*_source` key in the rewritten payload,
/// an unrendered media key, messages), and every http(s) URL inside a `message` is redacted too, since fetch errors
/// may name a redirect target. Other strings, such as story links, are left as written. Costs one walk of the report
/// and, per string, one search per distinct secret-bearing source.
package struct MediaURLRedaction: Sendable {
    /// Each media source that redaction changes, longest first so that no source is cut inside a longer one.
    private let replacements: [(original: String, redacted: String)]

    /// Collects the sources of every `results[].media[].source` in `report`.
    package init(report: JSONValue) {
        var sources = Set<String>()
        for result in report.objectValue?["results"]?.arrayValue ?? [] {
            for media in result.objectValue?["media"]?.arrayValue ?? [] {
                if let source = media.objectValue?["source"]?.stringValue { sources.insert(source) }
            }
        }
        replacements = sources.compactMap { source in
            let redacted = URLRedaction.redact(source)
            return redacted == source ? nil : (source, redacted)
        }.sorted { $0.original.count > $1.original.count }
    }

    /// `value` with every secret of its media URLs removed.
    package func redact(_ value: JSONValue, key: String? = nil) -> JSONValue {
        switch value {
        case .string(let text):
            var text = text
            for (original, redacted) in replacements where text.contains(original) {
                text = text.replacingOccurrences(of: original, with: redacted)
            }
            return .string(key == "message" ? Self.redactEmbeddedURLs(text) : text)
        case .array(let elements):
            return .array(elements.map { redact($0) })
        case .object(let object):
            return .object(JSONObject(object.map { ($0.key, redact($0.value, key: $0.key)) }))
        case .null, .bool, .number:
            return value
        }
    }

    /// Prose with each `http://` or `https://` token (up to white space or a quote) passed through `URLRedaction`.
    static func redactEmbeddedURLs(_ text: String) -> String {
        guard text.contains("://") else { return text }
        var output = ""
        var rest = Substring(text)
        while let start = rest.range(of: "http", options: .caseInsensitive)?.lowerBound {
            output += rest[..<start]
            let candidate = rest[start...]
            let end = candidate.firstIndex(where: { $0.isWhitespace || $0 == "\"" || $0 == "'" || $0 == "<" || $0 == ">" })
                ?? candidate.endIndex
            let token = String(candidate[..<end])
            let lowered = token.lowercased()
            output += lowered.hasPrefix("http://") || lowered.hasPrefix("https://") ? URLRedaction.redact(token) : token
            rest = candidate[end...]
        }
        return output + rest
    }
}
