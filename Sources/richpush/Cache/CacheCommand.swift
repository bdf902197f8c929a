import Foundation
import RichPush

/// `richpush cache stats | gc | verify`: maintenance of the shared media cache.
enum CacheCommand: Command {
    static let name = "cache"
    static let abstract = "Inspect and maintain the media cache: stats, gc (evict LRU within a byte budget), verify."
    static let usage = "richpush cache stats | gc --max-bytes SIZE [--max-age DURATION] | verify [--repair]  [options]"
    static let maximumPositionals = 1
    static let helpNotes = """
        Exit status:
          0  done: stats printed, gc met its budget, verify found no problems
          1  gc could not meet --max-bytes (retained or locked objects remain); verify found problems
          2  usage error
          3  no cache at --cache-dir, or the cache (directory or bucket) cannot be read

        """
    static let options = CacheOption.all

    static func run(_ options: ParsedOptions) async throws -> Int32 {
        guard let action = options.positionals.first else { throw UsageError.missingArgument("cache action: stats, gc or verify") }
        guard let ownOptions = CacheOption.byAction[action] else {
            throw UsageError.invalidValue(option: "action", value: action, expected: "stats, gc or verify")
        }
        // Only flags count: one configuration file or environment serves every action.
        for option in CacheOption.byAction.values.reduce(Set(), { $0.union($1) }).subtracting(ownOptions).sorted()
        where options.source(of: option) == .commandLine {
            throw UsageError.unknownOption("--\(option)", command: "cache \(action)")
        }
        let settings = try WorkerSettings(options)
        let json = try options.value(of: SharedOption.format) == "json"
        var maximumBytes: Int?, maximumAge: Duration?
        if action == "gc" {
            maximumBytes = try options.value(of: CacheOption.maximumBytes)
            maximumAge = try options.value(of: CacheOption.maximumAge)
            guard maximumBytes != nil || maximumAge != nil else { throw UsageError.missingArgument("--max-bytes or --max-age for gc") }
        }
        // Maintenance never creates a cache: a mistyped --cache-dir must not report an empty one.
        if settings.cacheURL == nil {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: settings.cacheDirectory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw CacheCommandError.missingCache(settings.cacheDirectory)
            }
        }
        let fetcher = try Fetcher(configuration: settings.fetchConfiguration)
        defer { fetcher.shutdown() }
        do {
            let store = try await settings.makeStore(fetcher: fetcher)
            switch action {
            case "stats":
                print(try CacheReport(try await store.statistics()).rendered(json: json))
                return 0
            case "gc":
                let report = try await store.collectGarbage(maximumBytes: maximumBytes, maximumAge: maximumAge)
                print(try CacheReport(report, summary: summary(of: report, maximumBytes: maximumBytes)).rendered(json: json))
                return report.budgetMet ? 0 : 1
            default:
                let report = try await store.verify(repair: try options.value(of: CacheOption.repair))
                print(try CacheReport(report).rendered(json: json))
                return report.problemCount == 0 ? 0 : 1
            }
        } catch let error as UsageError {
            throw error
        } catch {
            throw CacheCommandError.unreadableCache(settings.cacheURL.map(URLRedaction.redact) ?? settings.cacheDirectory, "\(error)")
        }
    }

    /// One sentence an operator reads first: what was evicted, what remains, and why the budget was not met.
    static func summary(of report: GarbageCollectionReport, maximumBytes: Int?) -> String {
        var text = "evicted \(report.evictedObjects) of \(report.scannedObjects) objects (\(report.evictedBytes) of "
            + "\(report.scannedBytes) bytes); \(report.remainingObjects) objects (\(report.remainingBytes) bytes) remain"
        if let maximumBytes { text += " against a budget of \(maximumBytes) bytes" }
        guard !report.budgetMet else { return text + "; budget met" }
        let retained = report.notEvicted.filter { $0.reason == "retained" }
        let locked = report.notEvicted.count - retained.count
        text += "; budget NOT met: \(retained.count) objects are retained for pushes that may still be delivered"
        if let latest = retained.compactMap(\.retainUntil).max() {
            text += " (the last until \(ISO8601DateFormatter().string(from: latest)); lower --default-retention for new objects)"
        }
        if locked > 0 { text += ", \(locked) are being written" }
        return text
    }
}

/// The cache is missing or cannot be read: exit status 3, apart from gc's missed budget (1).
enum CacheCommandError: Error, CustomStringConvertible, CommandFailure {
    case missingCache(String)
    case unreadableCache(String, String)

    var exitStatus: Int32 { 3 }

    var description: String {
        switch self {
        case .missingCache(let path): "no cache at \(path) (check --cache-dir; process, consume or prewarm create it)"
        case .unreadableCache(let location, let reason): "cannot read the cache at \(location): \(reason)"
        }
    }
}
