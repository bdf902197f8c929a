import Foundation
import RichPushCore

/// The one resolution of a cache key, for every backend: fresh → hit; live failure → fail fast; else hold the key,
/// look again, run the producer, and publish, revalidate (304) or record the failure.
///
/// The rules live here once, so the two stores cannot drift: a 304 removes the key's negative entry, and a
/// retention raise is a use (it moves `lastUsedAt`). Costs: a warm key is one read of the sidecar (or of the
/// negative entry); a cold one adds the hold, a second read, the producer and two or three writes.
struct CacheResolver<Backend: CacheBackend>: Sendable {
    let backend: Backend

    var rules: CacheFreshnessRules { backend.rules }

    /// A fresh object (its retention raised when `retainUntil` asks for more) or a live failure; nil when the
    /// producer must run.
    func answer(
        _ key: CacheKey, retainUntil: Date?, deadline: ContinuousClock.Instant
    ) async throws(CacheError) -> CacheOutcome? {
        guard let found = try await look(key, deadline: deadline) else { return nil }
        return try await retaining(found, key: key, until: retainUntil, deadline: deadline)
    }

    /// One key, start to finish. The producer runs at most once per key across every process holding it.
    func resolve(
        key: CacheKey, sourceURL: String, variant: String, retainUntil: Date?, deadline: ContinuousClock.Instant,
        produce: @escaping @Sendable (CachedObject?) async throws -> CacheProduction
    ) async throws(CacheError) -> CacheOutcome {
        if let answer = try await answer(key, retainUntil: retainUntil, deadline: deadline) { return answer }
        switch try await backend.hold(key, deadline: deadline, look: { () async throws(CacheError) in
            try await look(key, deadline: deadline)
        }) {
        case .answered(let outcome):
            return try await retaining(outcome, key: key, until: retainUntil, deadline: deadline)
        case .held(let hold):
            return try await holding(hold, key) { () async throws(CacheError) in
                try await resolveHolding(
                    key: key, sourceURL: sourceURL, variant: variant, retainUntil: retainUntil, deadline: deadline,
                    produce: produce)
            }
        }
    }

    /// Raises `retainUntil` under the key's hold, re-reading the sidecar so that no concurrent raise is lost.
    func raiseRetention(
        _ key: CacheKey, to requested: Date, deadline: ContinuousClock.Instant
    ) async throws(CacheError) -> CachedObject? {
        guard case .held(let hold) = try await backend.hold(key, deadline: deadline, look: { nil }) else { return nil }
        return try await holding(hold, key) { () async throws(CacheError) in
            try await raiseRetentionHolding(key, to: requested, deadline: deadline)
        }
    }

    // MARK: Holding the key

    private func resolveHolding(
        key: CacheKey, sourceURL: String, variant: String, retainUntil: Date?, deadline: ContinuousClock.Instant,
        produce: @escaping @Sendable (CachedObject?) async throws -> CacheProduction
    ) async throws(CacheError) -> CacheOutcome {
        // Another process may have published while this one waited for the key.
        let current = try await backend.readObject(key, deadline: deadline)
        if let current, rules.isFresh(current) {
            return .hit(try await raiseRetentionHolding(key, to: retainUntil, deadline: deadline) ?? current)
        }
        let previousFailure = try await backend.readFailure(key, deadline: deadline)
        if let previousFailure, rules.isLive(previousFailure) { return .failed(previousFailure, cached: true) }

        switch try await CacheProduction.make(by: produce, replacing: current) {
        case .object(let bytes, let stored, let width, let height, let etag, let lastModified, let maxAge, let sourceWidth, let sourceHeight, let score):
            if let problem = stored.publishingProblem(bytes: bytes, width: width, height: height) {
                return .failed(
                    try await recordFailure(key, code: .invalidOutput, message: problem.reason, deadline: deadline),
                    cached: false)
            }
            let object = CachedObject(
                publishedAt: rules.now.cacheMillisecondPrecision, key: key, sourceURL: sourceURL, variant: variant,
                width: width, height: height, byteCount: bytes.count, format: stored,
                contentSHA256: SHA256.hexDigest(of: bytes), etag: etag, lastModified: lastModified, maxAge: maxAge,
                retainUntil: retainUntil, replacing: current,
                relativePath: CacheLayout.relativeObjectPath(key, fileExtension: stored.fileExtension), rules: rules,
                sourceWidth: sourceWidth, sourceHeight: sourceHeight, score: score)
            try await backend.publish(object, bytes: bytes, replacing: current, deadline: deadline)
            if previousFailure != nil { try await backend.removeFailure(key, deadline: deadline) }
            return .produced(object)
        case .notModified(let etag, let lastModified, let maxAge):
            guard var object = current else {
                throw CacheError.invalidProduction(key: key.hexDigest, reason: "notModified without a stored object")
            }
            object.revalidate(etag: etag, lastModified: lastModified, maxAge: maxAge, retainUntil: retainUntil, rules: rules)
            try await backend.writeSidecar(object, deadline: deadline)
            if previousFailure != nil { try await backend.removeFailure(key, deadline: deadline) }
            return .revalidated(object)
        case .failure(let error):
            // Only the same answer next time is worth remembering; a deadline or a fault of ours is retried.
            guard error.isPermanent else { throw CacheError.producerFailed(error) }
            return .failed(
                try await recordFailure(key, code: error.code, message: error.description, deadline: deadline),
                cached: false)
        }
    }

    private func raiseRetentionHolding(
        _ key: CacheKey, to requested: Date?, deadline: ContinuousClock.Instant
    ) async throws(CacheError) -> CachedObject? {
        guard var object = try await backend.readObject(key, deadline: deadline) else { return nil }
        guard let requested, rules.needsRetention(object, until: requested) else { return object }
        object.retainUntil = rules.roundedRetention(requested)
        // A job that raises the retention uses the object, so GC's LRU must see it.
        object.lastUsedAt = rules.now.cacheMillisecondPrecision
        try await backend.writeSidecar(object, deadline: deadline)
        return object
    }

    // MARK: Parts

    /// A fresh object or a live failure, as stored; no retention raise.
    private func look(_ key: CacheKey, deadline: ContinuousClock.Instant) async throws(CacheError) -> CacheOutcome? {
        if let object = try await backend.readObject(key, deadline: deadline), rules.isFresh(object) { return .hit(object) }
        if let failure = try await backend.readFailure(key, deadline: deadline), rules.isLive(failure) {
            return .failed(failure, cached: true)
        }
        return nil
    }

    private func retaining(
        _ outcome: CacheOutcome, key: CacheKey, until retainUntil: Date?, deadline: ContinuousClock.Instant
    ) async throws(CacheError) -> CacheOutcome {
        guard let object = outcome.object, let retainUntil, rules.needsRetention(object, until: retainUntil) else {
            return outcome
        }
        return .hit(try await raiseRetention(key, to: retainUntil, deadline: deadline) ?? object)
    }

    private func recordFailure(
        _ key: CacheKey, code: ErrorCode, message: String, deadline: ContinuousClock.Instant
    ) async throws(CacheError) -> CachedFailure {
        let failure = rules.failure(key, code: code, message: message)
        try await backend.writeFailure(failure, deadline: deadline)
        return failure
    }

    /// Runs `body` holding the key, and gives the hold back whether it returned or threw.
    private func holding<Value>(
        _ hold: Backend.Hold, _ key: CacheKey, _ body: () async throws(CacheError) -> Value
    ) async throws(CacheError) -> Value {
        do throws(CacheError) {
            let value = try await body()
            await backend.release(hold, for: key)
            return value
        } catch {
            await backend.release(hold, for: key)
            throw error
        }
    }
}
