import Foundation

/// A snapshot of the store, from one scan of the sidecars plus the shared hit/miss counters.
public struct CacheStatistics: Sendable, Hashable, Codable {
    /// One object, for the oldest/newest report.
    public struct Entry: Sendable, Hashable, Codable {
        public var key: CacheKey
        public var sourceURL: String
        public var variant: String
        public var fetchedAt: Date
        public var lastUsedAt: Date
    }

    public var objectCount = 0
    public var totalBytes = 0
    public var staleObjectCount = 0
    /// Requests answered from a fresh object (all processes, persisted in `counters.json`).
    public var hits = 0
    /// Requests that ran the producer (published, revalidated or failed).
    public var misses = 0
    public var revalidations = 0
    /// Requests answered from a live negative entry.
    public var negativeHits = 0
    /// Sum of the `hits` recorded in sidecars.
    public var recordedObjectHits = 0
    /// The object with the earliest `fetchedAt`.
    public var oldestEntry: Entry?
    /// The object with the latest `fetchedAt`.
    public var newestEntry: Entry?
    /// Negative entries still live.
    public var negativeEntryCount = 0
    public var expiredNegativeEntryCount = 0

    public init() {}
}
