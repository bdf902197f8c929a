import Foundation
import RichPushCore

/// The one resolution of a cache key, for every backend: fresh → hit; live failure → fail fast; else hold the key,
/// look again, run the producer, and publish, revalidate (304) or record the failure.
///
/// The rules live here once, so the two stores cannot drift: a 304 removes the key's negative entry, and a
/// retention raise is a use (it moves `lastUsedAt`). Costs: a warm key is one read of the sidecar (or of the
/// negative entry); a cold one adds the hold, one read under it, the producer and two or three writes.
struct CacheResolver<Backend: CacheBackend>: Sendable {
    let backend: Backend

    /// What a key holds: its object (fresh or stale) and, unless the object is fresh, its negative entry.
    private struct Stored {
        var object: CachedObject?
        var failure: CachedFailure?
    }

    var rules: CacheFreshnessRules { backend.rules }

    /// One key, start to finish. The producer runs at most once per key across every process holding it.
    /// After a look that read the key without the hold and found nothing to answer (`CacheMiss.readStore`: the file
    /// store's look), the resolution goes straight to the hold, whose re-check is the only read. Otherwise it reads
    /// the key first, and a hold that keeps no other process out needs no re-check.
    func resolve(_ request: CacheRequest, after miss: CacheMiss) async throws(CacheError) -> CacheOutcome {
        let (key, deadline) = (request.key, request.deadline)
        var unheld: Stored?
        if !miss.readStore {
            let stored = try await read(key, deadline: deadline)
            if let found = answer(from: stored) {
                return try await retaining(found, key: key, until: request.retainUntil, deadline: deadline)
            }
            unheld = stored
        }
        switch try await backend.hold(key, deadline: deadline, look: { () async throws(CacheError) in
            try await look(key, deadline: deadline)
        }) {
        case .answered(let outcome):
            return try await retaining(outcome, key: key, until: request.retainUntil, deadline: deadline)
        case .held(let hold, let keepsOthersOut):
            // Under a hold that keeps no other process out, a re-check could only find what the read just found.
            let known = keepsOthersOut ? nil : unheld
            return try await holding(hold, key) { () async throws(CacheError) in
                try await resolveHolding(request, known: known)
            }
        }
    }

    /// Raises `retainUntil` under the key's hold, re-reading the sidecar so that no concurrent raise is lost.
    func raiseRetention(
        _ key: CacheKey, to requested: Date, deadline: ContinuousClock.Instant
    ) async throws(CacheError) -> CachedObject? {
        guard case .held(let hold, _) = try await backend.hold(key, deadline: deadline, look: { nil }) else { return nil }
        return try await holding(hold, key) { () async throws(CacheError) in
            try await raiseRetentionHolding(key, to: requested, deadline: deadline)
        }
    }

    // MARK: Holding the key

    /// `known` is what the key held when no other process can have changed it since; else it is read again here.
    private func resolveHolding(_ request: CacheRequest, known: Stored?) async throws(CacheError) -> CacheOutcome {
        let (key, retainUntil, deadline) = (request.key, request.retainUntil, request.deadline)
        // Another process may have published while this one waited for the key.
        let stored: Stored
        if let known { stored = known } else { stored = try await read(key, deadline: deadline) }
        let current = stored.object
        if let current, rules.isFresh(current) {
            return .hit(try await raisingRetention(of: current, to: retainUntil, deadline: deadline))
        }
        let previousFailure = stored.failure
        if let previousFailure, rules.isLive(previousFailure) { return .failed(previousFailure, cached: true) }

        switch try await CacheProduction.make(by: request.produce, replacing: current) {
        case .object(let bytes, let stored, let width, let height, let etag, let lastModified, let maxAge, let sourceWidth, let sourceHeight, let score):
            if let problem = stored.publishingProblem(bytes: bytes, width: width, height: height) {
                return .failed(
                    try await recordFailure(key, code: .invalidOutput, message: problem.reason, deadline: deadline),
                    cached: false)
            }
            let object = CachedObject(
                publishedAt: rules.now.cacheMillisecondPrecision, key: key, sourceURL: request.sourceURL, variant: request.variant,
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
        _ key: CacheKey, to requested: Date, deadline: ContinuousClock.Instant
    ) async throws(CacheError) -> CachedObject? {
        guard let object = try await backend.readObject(key, deadline: deadline) else { return nil }
        return try await raisingRetention(of: object, to: requested, deadline: deadline)
    }

    /// `object` as read under the hold, its retention raised to `requested` (the sidecar rewritten) when it does not
    /// reach that yet.
    private func raisingRetention(
        of object: CachedObject, to requested: Date?, deadline: ContinuousClock.Instant
    ) async throws(CacheError) -> CachedObject {
        guard let requested, rules.needsRetention(object, until: requested) else { return object }
        var object = object
        object.retainUntil = rules.roundedRetention(requested)
        // A job that raises the retention uses the object, so GC's LRU must see it.
        object.lastUsedAt = rules.now.cacheMillisecondPrecision
        try await backend.writeSidecar(object, deadline: deadline)
        return object
    }

    // MARK: Parts

    /// A fresh object or a live failure, as stored; no retention raise.
    private func look(_ key: CacheKey, deadline: ContinuousClock.Instant) async throws(CacheError) -> CacheOutcome? {
        answer(from: try await read(key, deadline: deadline))
    }

    /// The key's object, and its negative entry when the object is not fresh (a fresh one answers without it).
    private func read(_ key: CacheKey, deadline: ContinuousClock.Instant) async throws(CacheError) -> Stored {
        let object = try await backend.readObject(key, deadline: deadline)
        if let object, rules.isFresh(object) { return Stored(object: object) }
        return Stored(object: object, failure: try await backend.readFailure(key, deadline: deadline))
    }

    /// A fresh object or a live failure from what a key holds; nil when the producer must run.
    private func answer(from stored: Stored) -> CacheOutcome? {
        if let object = stored.object, rules.isFresh(object) { return .hit(object) }
        if let failure = stored.failure, rules.isLive(failure) { return .failed(failure, cached: true) }
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
