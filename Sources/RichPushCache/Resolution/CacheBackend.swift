import Foundation

/// Where a store keeps its entries, and how it holds one key exclusively: the primitives under the one set of
/// rules that `CacheResolver` applies to both stores.
///
/// The file backend reads and writes under the cache directory and holds a key with `flock`; the object-storage
/// backend reads and writes with S3 requests and holds a key with a lease (Redis), or not at all without one.
/// Every method takes the caller's deadline; the file backend, whose calls are local, ignores it.
protocol CacheBackend: Sendable {
    /// What `hold` gives and `release` takes back: a lock file, a lease token, or nothing.
    associatedtype Hold: Sendable

    var rules: CacheFreshnessRules { get }

    /// The object if its sidecar and its bytes are in place; nil when absent, half-published or unreadable.
    func readObject(_ key: CacheKey, deadline: ContinuousClock.Instant) async throws(CacheError) -> CachedObject?
    func readFailure(_ key: CacheKey, deadline: ContinuousClock.Instant) async throws(CacheError) -> CachedFailure?
    func writeSidecar(_ object: CachedObject, deadline: ContinuousClock.Instant) async throws(CacheError)
    func writeFailure(_ failure: CachedFailure, deadline: ContinuousClock.Instant) async throws(CacheError)
    func removeFailure(_ key: CacheKey, deadline: ContinuousClock.Instant) async throws(CacheError)
    /// Puts `bytes` under `object.relativePath`, then `object`'s sidecar, so that a sidecar never describes bytes
    /// that are not there; `previous` (another format's object) is kept as a retired record while a push may still
    /// use it, else removed.
    func publish(
        _ object: CachedObject, bytes: Data, replacing previous: CachedObject?, deadline: ContinuousClock.Instant
    ) async throws(CacheError)

    /// Takes `key` exclusively, polling while another holder has it, within the deadline and the store's wait limit
    /// (`lockTimeout`). Between polls it calls `look`; an answer there ends the wait without the hold.
    func hold(
        _ key: CacheKey, deadline: ContinuousClock.Instant, look: () async throws(CacheError) -> CacheOutcome?
    ) async throws(CacheError) -> CacheHoldResult<Hold>
    /// Gives a hold back. Never throws: a lease that cannot be released expires by itself.
    func release(_ hold: Hold, for key: CacheKey) async

    /// A fresh object covering `retainUntil`, or a live failure, read without a hold and without waiting; `.missed`
    /// when the key must be resolved, `.notRead` when such a read is not cheap (object storage answers from memory
    /// only), so that the resolution must read the key itself.
    func lookWithoutHold(_ key: CacheKey, retainUntil: Date?) -> UnheldLook
}

extension CacheBackend {
    /// Backends whose reads are requests answer nothing without a resolution.
    func lookWithoutHold(_ key: CacheKey, retainUntil: Date?) -> UnheldLook { .notRead }
}

/// What a backend's read without a hold found.
enum UnheldLook {
    case answered(CacheOutcome)
    /// Read, with nothing to answer: the key must be resolved.
    case missed
    case notRead
}

/// How waiting for a key ended.
enum CacheHoldResult<Hold: Sendable>: Sendable {
    /// This caller holds the key. `keepsOthersOut` is true when the hold keeps other processes out of the key (a
    /// `flock`, a lease), so that what was read before it must be read again under it; false when it only stands
    /// for this process's single-flight (object storage without a lease).
    case held(Hold, keepsOthersOut: Bool)
    /// Another holder published an object or a failure while this one waited.
    case answered(CacheOutcome)
}
