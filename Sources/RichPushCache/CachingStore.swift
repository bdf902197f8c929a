import Foundation
import Synchronization

/// The caching every store puts around its backend, written once: the opening check of the public base URL, the
/// cancellation and deadline checks, the memory of recent answers (`OutcomeMemory`), the in-process single-flight,
/// the `CacheResolver` that applies the rules, and this instance's hit/miss counters.
///
/// `FileMediaStore` and `ObjectStorageMediaStore` each hold one over their backend and add only what is theirs:
/// the directory's usage write-back and maintenance, or the bucket's listings and lease.
///
/// Costs: a warm key is a memory look-up, or the backend's own answer without a hold (`answerWithoutHold`); a cold
/// key is one resolution per key in this process, whatever the number of callers, and is read once without the
/// hold (here, or in the resolution when the backend has no cheap read) and once under it.
final class CachingStore<Backend: CacheBackend>: Sendable {
    let publicBaseURL: String
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
        self.publicBaseURL = publicBaseURL
        let memory = OutcomeMemory(duration: memoryHitDuration, clock: clock)
        self.singleFlight = SingleFlight(clock: clock)
        self.memory = memory
        let backend = try makeBackend(memory)
        self.backend = backend
        self.resolver = CacheResolver(backend: backend)
    }

    /// Resolutions started by this instance; callers that joined one in flight do not count. For tests.
    var flightsStarted: Int { singleFlight.flightsStarted }

    /// Callers of this instance waiting for a resolution, leaders included. For tests.
    var callersWaiting: Int { singleFlight.callersWaiting }

    /// `MediaStore.object(for:…)`: an immediate answer when there is one, else one resolution per key in this
    /// process (callers of the same key share it), counted. `afterImmediateMiss` is for a caller whose
    /// `immediateOutcome` just answered nil (`MediaStore.resolveObject`): memory is asked again, the backend is not.
    func object(
        for key: CacheKey, sourceURL: String, variant: String, retainUntil: Date?, deadline: ContinuousClock.Instant,
        afterImmediateMiss: Bool = false, produce: @escaping @Sendable (CachedObject?) async throws -> CacheProduction
    ) async throws(CacheError) -> CacheOutcome {
        if Task.isCancelled { throw CacheError.cancelled }
        if backend.rules.clock.instant >= deadline { throw CacheError.deadlineExceeded }
        if let answer = immediateOutcome(for: key, retainUntil: retainUntil, readingBackend: !afterImmediateMiss) {
            return answer
        }
        let resolver = self.resolver
        // The backend's read without the hold, when it has one, was that look: the resolution need not repeat it.
        let looked = backend.looksWithoutHold
        let outcome = try await singleFlight.storeOutcome(
            for: key, retainUntil: retainUntil, deadline: deadline, rules: backend.rules, memory: memory
        ) { () async throws(CacheError) in
            try await resolver.resolve(
                key: key, sourceURL: sourceURL, variant: variant, retainUntil: retainUntil, deadline: deadline,
                looked: looked, produce: produce)
        } raiseRetention: { (date: Date) async throws(CacheError) in
            try await resolver.raiseRetention(key, to: date, deadline: deadline)
        }
        counters.withLock { $0.count(outcome) }
        return outcome
    }

    /// `MediaStore.immediateOutcome`: a fresh object covering `retainUntil`, or a live failure, from memory or from
    /// the backend without a hold (unless `readingBackend` is false); nil while this process resolves the key, or
    /// when the key must be resolved. A read error is not an answer: resolving the key reports it.
    func immediateOutcome(for key: CacheKey, retainUntil: Date?, readingBackend: Bool = true) -> CacheOutcome? {
        guard singleFlight.isIdle(key) else { return nil }
        let answer: CacheOutcome
        if let remembered = memory.answer(for: key, retainUntil: retainUntil, rules: backend.rules) {
            answer = remembered
        } else if readingBackend, let read = backend.answerWithoutHold(key, retainUntil: retainUntil) {
            memory.remember(read)
            answer = read
        } else {
            return nil
        }
        counters.withLock { $0.count(answer) }
        return answer
    }

    /// `publicBaseURL` without trailing slashes, `/`, and the object's relative path. No I/O.
    func publicURL(for object: CachedObject) -> String {
        CacheLayout.publicURL(base: publicBaseURL, relativePath: object.relativePath)
    }
}
