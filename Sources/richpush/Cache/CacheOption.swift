/// The options of `richpush cache` besides the cache's location.
enum CacheOption {
    static let maximumBytes = OptionKey(
        "max-bytes", .byteCount, defaultText: "none", help: "gc: evict least recently used objects down to this size.")
    static let maximumAge = OptionKey(
        "max-age", .duration, defaultText: "none", help: "gc: also evict objects unused for this long, e.g. 14d.")
    static let repair = OptionKey("repair", .flag, default: false, help: "verify: quarantine mismatched objects and remove orphans.")

    /// The options that belong to one action; given on the command line to another action they are a mistake.
    static let byAction: [String: Set<String>] = ["stats": [], "gc": [maximumBytes.name, maximumAge.name], "verify": [repair.name]]

    static let all: [any AnyOptionKey] = [
        WorkerOption.configuration, WorkerOption.cacheDirectory, WorkerOption.publicBaseURL,
    ] + WorkerOption.storage + [maximumBytes, maximumAge, repair, SharedOption.format, WorkerOption.logLevel]
}
