import Foundation

/// What one GC pass did, and what it wanted to evict but could not.
public struct GarbageCollectionReport: Sendable, Hashable, Codable {
    /// An object GC selected but kept.
    public struct KeptObject: Sendable, Hashable, Codable {
        public var key: CacheKey
        public var relativePath: String
        public var bytes: Int
        /// `retained` (retainUntil in the future) or `locked` (another task or process holds its lock).
        public var reason: String
        public var retainUntil: Date?

        init(_ object: CachedObject, reason: String) {
            key = object.key
            relativePath = object.relativePath
            bytes = object.bytes
            self.reason = reason
            retainUntil = object.retainUntil
        }
    }

    public var scannedObjects = 0
    public var scannedBytes = 0
    public var evictedObjects = 0
    public var evictedBytes = 0
    public var remainingObjects = 0
    public var remainingBytes = 0
    /// False when retained or locked objects kept the store above `maximumBytes`.
    public var budgetMet = true
    public var notEvicted: [KeptObject] = []
    public var removedNegativeEntries = 0
    public var removedTemporaryFiles = 0
    /// Files left behind by a re-render in another format, removed once their retainUntil passed.
    public var removedRetiredObjects = 0

    public init() {}
}
