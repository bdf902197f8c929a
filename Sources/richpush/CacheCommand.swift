import Foundation
import RichPush

/// `richpush cache stats | gc | verify`: maintenance of the shared media cache.
enum CacheCommand: Command {
    static let name = "cache"
    static let abstract = "Inspect and maintain the media cache: stats, gc (evict LRU within a byte budget), verify."
    static let usage = "richpush cache stats | gc --max-bytes SIZE [--max-age DURATION] | verify [--repair]  [options]"
    static let options = [
        WorkerSettings.configuration,
        WorkerSettings.cacheDirectory,
        WorkerSettings.publicBaseURL,
    ] + WorkerSettings.storageOptions + [
        OptionDefinition("max-bytes", .value, valueName: "SIZE", help: "gc: evict least recently used objects down to this size."),
        OptionDefinition("max-age", .value, valueName: "DURATION", help: "gc: also evict objects unused for this long, e.g. 14d."),
        OptionDefinition("repair", .flag, help: "verify: quarantine mismatched objects and remove orphans."),
        OptionDefinition("format", .value, valueName: "FORMAT", help: "text (default) or json."),
        WorkerSettings.logLevel,
    ]

    static func run(_ options: ParsedOptions) async throws -> Int32 {
        guard let action = options.positionals.first else { throw UsageError.missingArgument("cache action: stats, gc or verify") }
        let settings = try WorkerSettings(options)
        let fetcher = try Fetcher(configuration: settings.fetchConfiguration)
        defer { fetcher.shutdown() }
        let store = try await settings.makeStore(fetcher: fetcher)
        let json = options.string("format") == "json"
        // Text is the same report as JSON, flattened to one `name: value` line per field.
        func render(_ report: some Encodable) throws -> String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            let data = try encoder.encode(report)
            guard !json else { return String(decoding: data, as: UTF8.self) }
            return try flattened(JSONParser.parse(data), prefix: "").joined(separator: "\n")
        }
        switch action {
        case "stats":
            let statistics = try await store.statistics()
            print(try render(statistics))
            return 0
        case "gc":
            let maximumBytes = try options.byteCount("max-bytes")
            let maximumAge = try options.duration("max-age")
            guard maximumBytes != nil || maximumAge != nil else { throw UsageError.missingArgument("--max-bytes or --max-age for gc") }
            let report = try await store.collectGarbage(maximumBytes: maximumBytes, maximumAge: maximumAge)
            print(try render(report))
            return 0
        case "verify":
            let report = try await store.verify(repair: options.flag("repair"))
            print(try render(report))
            return report.problemCount == 0 ? 0 : 1
        default:
            throw UsageError.invalidValue(option: "action", value: action, expected: "stats, gc or verify")
        }
    }

    private static func flattened(_ value: JSONValue, prefix: String) -> [String] {
        switch value {
        case .object(let object):
            if object.isEmpty { return ["\(prefix): {}"] }
            return object.members.flatMap { flattened($0.value, prefix: prefix.isEmpty ? $0.key : "\(prefix).\($0.key)") }
        case .array(let elements):
            if elements.isEmpty { return ["\(prefix): none"] }
            return elements.enumerated().flatMap { flattened($0.element, prefix: "\(prefix)[\($0.offset)]") }
        case .string(let text): return ["\(prefix): \(text)"]
        case .number(let text): return ["\(prefix): \(text)"]
        case .bool(let flag): return ["\(prefix): \(flag)"]
        case .null: return ["\(prefix): -"]
        }
    }
}
