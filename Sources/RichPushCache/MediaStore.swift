import Foundation

/// Storage for rendered media, so that an object-storage backend can replace the file store without touching the
/// pipeline.
public protocol MediaStore: Sendable {
    /// The answer available without waiting: a fresh object whose retention already reaches `retainUntil`, or a live
    /// negative entry, from memory or a few small local reads; else a miss, which `object(for:after:)` takes so that
    /// it does not read the key again. Never calls a producer, takes a lock or goes to the network, and counts a hit
    /// as `object(for:after:)` does. It lets a caller answer a warm key without the task and deadline timer that a
    /// resolution may need.
    func look(for key: CacheKey, retainUntil: Date?) async -> CacheLook
    /// Single-flight in-process (one task per key) and across processes (flock on locks/<key>.lock, bounded wait).
    /// The producer receives the stale object (for conditional requests) or nil. Fresh objects and live negative
    /// entries return without calling the producer. `retainUntil` is raised (never lowered) on the object. After
    /// `miss`, the miss of `look` for the same key, only memory is asked again before the key's hold.
    func object(for request: CacheRequest, after miss: CacheMiss?) async throws(CacheError) -> CacheOutcome
    /// The stored object, fresh or stale; nil if absent.
    func lookup(_ key: CacheKey) async throws(CacheError) -> CachedObject?
    /// `<publicBaseURL>/objects/ab/cd/<key>.<ext>`.
    func publicURL(for object: CachedObject) -> String
    /// The published bytes of `object` (read whole into memory: one file read, or one GET); nil when the object is
    /// gone or no longer has the size its metadata records.
    func contents(of object: CachedObject) async throws(CacheError) -> Data?
    /// Writes buffered usage (hit counts, last-used times) now; call before the process exits.
    func flushUsage() async throws(CacheError)
    /// Whether the store can take work now: the directory is writable, or the bucket and the lease's Redis answer.
    /// Costs one small file write and removal, or one storage request and one Redis round trip per connection.
    func checkReadiness() async throws(CacheError)
}

/// What the `cache` commands and the cache metrics (`CacheGauges`) ask of a store: statistics, garbage collection,
/// verification, and this process's resolutions and reads. Not part of the library's API, which needs only
/// `MediaStore`.
package protocol MaintainedMediaStore: MediaStore {
    func statistics() async throws(CacheError) -> CacheStatistics
    func collectGarbage(maximumBytes: Int?, maximumAge: Duration?) async throws(CacheError) -> GarbageCollectionReport
    func verify(repair: Bool) async throws(CacheError) -> VerificationReport
    /// Resolutions this store started in this process; callers that joined one in flight do not count.
    var flightsStarted: Int { get }
    /// Callers of this store waiting for a resolution now, leaders included.
    var callersWaiting: Int { get }
    /// The store's reads of objects and negative entries from the directory; nil for object storage, whose reads
    /// are requests.
    var directoryReads: CacheLookCounts? { get }
}

extension MediaStore {
    /// `object(for:after:)` with no look before it.
    public func object(for request: CacheRequest) async throws(CacheError) -> CacheOutcome {
        try await object(for: request, after: nil)
    }

    /// Stores without a cheap local answer always resolve.
    public func look(for key: CacheKey, retainUntil: Date?) async -> CacheLook {
        .missed(CacheMiss(key: key, readStore: false))
    }

    /// Stores that buffer nothing have nothing to write.
    public func flushUsage() async throws(CacheError) {}
}
