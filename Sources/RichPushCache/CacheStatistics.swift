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

    /// Adds one object to the totals and the oldest/newest report.
    mutating func count(_ object: CachedObject, now: Date) {
        objectCount += 1
        totalBytes += object.bytes
        recordedObjectHits += object.hits
        if !object.isFresh(at: now) { staleObjectCount += 1 }
        let entry = Entry(
            key: object.key, sourceURL: object.sourceURL, variant: object.variant, fetchedAt: object.fetchedAt,
            lastUsedAt: object.lastUsedAt)
        if oldestEntry.map({ object.fetchedAt < $0.fetchedAt }) ?? true { oldestEntry = entry }
        if newestEntry.map({ object.fetchedAt > $0.fetchedAt }) ?? true { newestEntry = entry }
    }

    mutating func count(_ failure: CachedFailure, now: Date) {
        if now < failure.expiresAt { negativeEntryCount += 1 } else { expiredNegativeEntryCount += 1 }
    }

    mutating func count(_ counters: CacheUsageCounters) {
        hits += counters.hits
        misses += counters.misses
        revalidations += counters.revalidations
        negativeHits += counters.negativeHits
    }
}
