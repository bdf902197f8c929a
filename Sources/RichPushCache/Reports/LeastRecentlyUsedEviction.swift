import Foundation
import RichPushCore

/// What a store did with one object that GC selected.
enum EvictionDecision {
    /// Deleted; the bytes count against the budget no more.
    case evicted(bytes: Int)
    /// Kept, and reported (`retained` or `locked`).
    case kept(GarbageCollectionReport.KeptObject)
    /// Left alone without a report (gone already, or used since the scan).
    case skipped
}

extension GarbageCollectionReport {
    /// The eviction policy both stores share: objects in least-recently-used order, each selected while the store is
    /// over `maximumBytes` or when unused for longer than `maximumAge`; never one whose `retainUntil` is still
    /// ahead. `evict` does the store's own part for a selected object (its lock or lease, a re-read, the
    /// deletes) and is told whether the budget selected it. Fills every count of the report but the removals.
    mutating func evictLeastRecentlyUsed(
        _ scanned: [CachedObject], maximumBytes: Int?, maximumAge: Duration?, now: Date,
        evict: (_ object: CachedObject, _ overBudget: Bool) async throws(CacheError) -> EvictionDecision
    ) async throws(CacheError) {
        let objects = scanned.sorted { ($0.lastUsedAt, $0.key.hexDigest) < ($1.lastUsedAt, $1.key.hexDigest) }
        scannedObjects = objects.count
        scannedBytes = objects.reduce(0) { $0 + $1.bytes }
        var remainingBytes = scannedBytes
        var remainingObjects = objects.count
        let oldestAllowedUse = maximumAge.map { now.addingTimeInterval(-$0.timeInterval) }
        for object in objects {
            let overBudget = maximumBytes.map { remainingBytes > $0 } ?? false
            let tooOld = oldestAllowedUse.map { object.lastUsedAt < $0 } ?? false
            guard overBudget || tooOld else {
                // Objects are in LRU order: once within budget, only age can still select later ones.
                if oldestAllowedUse == nil { break }
                continue
            }
            if let retainUntil = object.retainUntil, retainUntil > now {
                notEvicted.append(KeptObject(object, reason: "retained"))
                continue
            }
            switch try await evict(object, overBudget) {
            case .evicted(let bytes):
                evictedObjects += 1
                evictedBytes += bytes
                remainingBytes -= bytes
                remainingObjects -= 1
            case .kept(let kept):
                notEvicted.append(kept)
            case .skipped:
                break
            }
        }
        self.remainingBytes = remainingBytes
        self.remainingObjects = remainingObjects
        budgetMet = maximumBytes.map { remainingBytes <= $0 } ?? true
    }
}
