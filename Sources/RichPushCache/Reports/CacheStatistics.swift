import Foundation

/// A snapshot of the store, from one scan of the sidecars plus the shared hit/miss counters.
package struct CacheStatistics: Sendable, Hashable, Codable {
    /// One object, for the oldest/newest report.
    package struct Entry: Sendable, Hashable, Codable {
        package var key: CacheKey
        package var sourceURL: String
        package var variant: String
        package var fetchedAt: Date
        package var lastUsedAt: Date
    }

    package var objectCount = 0
    package var totalBytes = 0
    package var staleObjectCount = 0
    /// Requests answered from a fresh object (all processes, persisted in `counters.json`).
    package var hits = 0
    /// Requests that ran the producer (published, revalidated or failed).
    package var misses = 0
    package var revalidations = 0
    /// Requests answered from a live negative entry.
    package var negativeHits = 0
    /// Sum of the `hits` recorded in sidecars.
    package var recordedObjectHits = 0
    /// The object with the earliest `fetchedAt`.
    package var oldestEntry: Entry?
    /// The object with the latest `fetchedAt`.
    package var newestEntry: Entry?
    /// Negative entries still live.
    package var negativeEntryCount = 0
    package var expiredNegativeEntryCount = 0

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
