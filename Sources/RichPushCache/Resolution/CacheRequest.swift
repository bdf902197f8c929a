import Foundation

/// One key's resolution, as a caller asks for it: the key, what the object will record (the source and the
/// variant), how long a push may still need it, when the caller stops waiting, and how to make it.
public struct CacheRequest: Sendable {
    public var key: CacheKey
    public var sourceURL: String
    public var variant: String
    /// The object is kept at least this long (raised, never lowered); nil asks for no retention.
    public var retainUntil: Date?
    public var deadline: ContinuousClock.Instant
    /// Receives the stale object (for a conditional request) or nil; runs at most once per key across processes.
    public var produce: @Sendable (CachedObject?) async throws -> CacheProduction

    public init(
        key: CacheKey, sourceURL: String, variant: String, retainUntil: Date?, deadline: ContinuousClock.Instant,
        produce: @escaping @Sendable (CachedObject?) async throws -> CacheProduction
    ) {
        self.key = key
        self.sourceURL = sourceURL
        self.variant = variant
        self.retainUntil = retainUntil
        self.deadline = deadline
        self.produce = produce
    }
}

/// What a store's first look at a key found (`MediaStore.look`): an answer, or a miss that carries what the look
/// read, so that the resolution after it (`MediaStore.object(for:after:)`) does not read it again.
public enum CacheLook: Sendable {
    case answered(CacheOutcome)
    case missed(CacheMiss)

    /// The answer, nil for a miss.
    public var outcome: CacheOutcome? {
        if case .answered(let outcome) = self { return outcome }
        return nil
    }
}

/// A look that found nothing to answer with, for the resolution of the same key.
public struct CacheMiss: Sendable {
    public let key: CacheKey
    /// The look read the store itself, not only memory: the resolution goes straight to the key's hold, whose
    /// re-check is then the only other read.
    let readStore: Bool

    init(key: CacheKey, readStore: Bool) {
        self.key = key
        self.readStore = readStore
    }
}
