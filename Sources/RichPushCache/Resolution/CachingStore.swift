import Foundation
import Synchronization

/// The caching every store puts around its backend, written once: the opening check of the public base URL, the
/// cancellation and deadline checks, the memory of recent answers (`OutcomeMemory`), the in-process single-flight,
/// the `CacheResolver` that applies the rules, and this instance's hit/miss counters.
///
/// `FileMediaStore` and `ObjectStorageMediaStore` each hold one over their backend and add only what is theirs:
/// the directory's usage write-back and maintenance, or the bucket's listings and lease.
///
/// Costs: a warm key is a memory look-up, or the backend's own answer without a hold (`lookWithoutHold`); a cold
/// key is one resolution per key in this process, whatever the number of callers, and is read once without the
/// hold (the look, or the resolution when the backend has no cheap read; a `CacheMiss` says which) and once under
/// it.
final class CachingStore<Backend: CacheBackend>: Sendable {
    /// `CacheLayout.publicURLPrefix` of the public base URL, made once: every warm look publishes a URL.
    let publicURLPrefix: String
    let backend: Backend
    let memory: OutcomeMemory
    /// Every answer this instance gave (hits, misses, revalidations, negative hits).
    let counters = Mutex(CacheUsageCounters())
    private let resolver: CacheResolver<Backend>
    private let singleFlight: SingleFlight

    /// Throws `invalidConfiguration` for a public base URL that is not http(s), has no host, or carries a query or
    /// fragment (device extensions need plain URLs). `makeBackend` gets the memory, for backends that forget there.
    init(
        publicBaseURL: String, memoryHitDuration: Duration, clock: any CacheClock,
        makeBackend: (OutcomeMemory) throws(CacheError) -> Backend
    ) throws(CacheError) {
        try CacheLayout.checkPublicBaseURL(publicBaseURL)
        self.publicURLPrefix = CacheLayout.publicURLPrefix(base: publicBaseURL)
        let memory = OutcomeMemory(duration: memoryHitDuration, clock: clock)
        self.singleFlight = SingleFlight(clock: clock)
        self.memory = memory
        let backend = try makeBackend(memory)
        self.backend = backend
        self.resolver = CacheResolver(backend: backend)
    }

    /// Resolutions started by this instance; callers that joined one in flight do not count.
    var flightsStarted: Int { singleFlight.flightsStarted }

    /// Callers of this instance waiting for a resolution, leaders included.
    var callersWaiting: Int { singleFlight.callersWaiting }

    /// `MediaStore.look`: a fresh object covering `retainUntil`, or a live failure, from memory or from the backend
    /// without a hold; a miss while this process resolves the key, or when the key must be resolved. A read error is
    /// not an answer: resolving the key reports it.
    func look(for key: CacheKey, retainUntil: Date?) -> CacheLook {
        guard singleFlight.isIdle(key) else { return .missed(CacheMiss(key: key, readStore: false)) }
        if let remembered = rememberedAnswer(for: key, retainUntil: retainUntil) { return .answered(remembered) }
        switch backend.lookWithoutHold(key, retainUntil: retainUntil) {
        case .answered(let read):
            memory.remember(read)
            counters.withLock { $0.count(read) }
            return .answered(read)
        case .missed:
            return .missed(CacheMiss(key: key, readStore: true))
        case .notRead:
            return .missed(CacheMiss(key: key, readStore: false))
        }
    }

    /// `MediaStore.object(for:after:)`: the look unless `miss` was it (then only memory is asked again, for a key
    /// another task resolved since), else one resolution per key in this process (callers of the same key share
    /// it), counted.
    func object(for request: CacheRequest, after miss: CacheMiss?) async throws(CacheError) -> CacheOutcome {
        if Task.isCancelled { throw CacheError.cancelled }
        if backend.rules.clock.instant >= request.deadline { throw CacheError.deadlineExceeded }
        let looked: CacheMiss
        if let miss, miss.key == request.key {
            if singleFlight.isIdle(request.key),
               let remembered = rememberedAnswer(for: request.key, retainUntil: request.retainUntil) {
                return remembered
            }
            looked = miss
        } else {
            switch look(for: request.key, retainUntil: request.retainUntil) {
            case .answered(let answer): return answer
            case .missed(let miss): looked = miss
            }
        }
        let resolver = self.resolver
        let outcome = try await singleFlight.storeOutcome(
            for: request.key, retainUntil: request.retainUntil, deadline: request.deadline, rules: backend.rules,
            memory: memory
        ) { () async throws(CacheError) in
            try await resolver.resolve(request, after: looked)
        } raiseRetention: { (date: Date) async throws(CacheError) in
            try await resolver.raiseRetention(request.key, to: date, deadline: request.deadline)
        }
        counters.withLock { $0.count(outcome) }
        return outcome
    }

    /// A remembered fresh object covering `retainUntil`, or live failure, counted; nil when memory has none.
    private func rememberedAnswer(for key: CacheKey, retainUntil: Date?) -> CacheOutcome? {
        guard let remembered = memory.answer(for: key, retainUntil: retainUntil, rules: backend.rules) else { return nil }
        counters.withLock { $0.count(remembered) }
        return remembered
    }

    /// The public base URL without trailing slashes, `/`, and the object's relative path. No I/O.
    func publicURL(for object: CachedObject) -> String {
        publicURLPrefix + object.relativePath
    }
}
