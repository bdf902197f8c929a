import Foundation

/// What one GC pass did, and what it wanted to evict but could not.
package struct GarbageCollectionReport: Sendable, Hashable, Codable {
    /// An object GC selected but kept.
    package struct KeptObject: Sendable, Hashable, Codable {
        package var key: CacheKey
        package var relativePath: String
        package var bytes: Int
        /// `retained` (retainUntil in the future) or `locked` (another task or process holds its lock).
        package var reason: String
        package var retainUntil: Date?

        init(_ object: CachedObject, reason: String) {
            key = object.key
            relativePath = object.relativePath
            bytes = object.bytes
            self.reason = reason
            retainUntil = object.retainUntil
        }
    }

    package var scannedObjects = 0
    package var scannedBytes = 0
    package var evictedObjects = 0
    package var evictedBytes = 0
    package var remainingObjects = 0
    package var remainingBytes = 0
    /// False when retained or locked objects kept the store above `maximumBytes`.
    package var budgetMet = true
    package var notEvicted: [KeptObject] = []
    package var removedNegativeEntries = 0
    package var removedTemporaryFiles = 0
    /// Files left behind by a re-render in another format, removed once their retainUntil passed.
    package var removedRetiredObjects = 0
}
