import Foundation
import RichPush

/// Renders the cache commands' reports with the project's own JSON writer, in snake_case like every other output,
/// scalar fields before lists so the totals come first; text is the same JSON flattened to `name: value` lines.
struct CacheReport {
    let value: JSONValue

    /// A report as JSON. `summary`, when given, is the first member.
    init(_ report: some Encodable, summary: String? = nil) throws {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        var value = Self.scalarsFirst(try JSONParser.parse(try encoder.encode(report)))
        if let summary, case .object(var object) = value {
            object = JSONObject([("summary", .string(summary))] + object.members.map { ($0.key, $0.value) })
            value = .object(object)
        }
        self.value = value
    }

    /// Pretty JSON, or `name: value` lines; text lists at most `maximumListedElements` of each list.
    func rendered(json: Bool, maximumListedElements: Int = 20) -> String {
        if json { return String(decoding: value.serialized(pretty: true), as: UTF8.self) }
        return Self.flattened(value, prefix: "", maximumListedElements: maximumListedElements).joined(separator: "\n")
    }

    private static func scalarsFirst(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            let members = object.members.map { ($0.key, scalarsFirst($0.value)) }
            let isContainer: (JSONValue) -> Bool = { if case .object = $0 { true } else if case .array = $0 { true } else { false } }
            return .object(JSONObject(members.filter { !isContainer($0.1) } + members.filter { isContainer($0.1) }))
        case .array(let elements): return .array(elements.map(scalarsFirst))
        default: return value
        }
    }

    private static func flattened(_ value: JSONValue, prefix: String, maximumListedElements: Int) -> [String] {
        switch value {
        case .object(let object):
            if object.isEmpty { return ["\(prefix): {}"] }
            return object.members.flatMap {
                flattened($0.value, prefix: prefix.isEmpty ? $0.key : "\(prefix).\($0.key)", maximumListedElements: maximumListedElements)
            }
        case .array(let elements):
            if elements.isEmpty { return ["\(prefix): none"] }
            var lines = elements.prefix(maximumListedElements).enumerated().flatMap {
                flattened($0.element, prefix: "\(prefix)[\($0.offset)]", maximumListedElements: maximumListedElements)
            }
            if elements.count > maximumListedElements {
                lines.append("\(prefix): \(elements.count - maximumListedElements) more (--format json lists all)")
            }
            return lines
        case .string(let text): return ["\(prefix): \(text)"]
        case .number(let text): return ["\(prefix): \(text)"]
        case .bool(let flag): return ["\(prefix): \(flag)"]
        case .null: return ["\(prefix): -"]
        }
    }
}
