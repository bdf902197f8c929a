import Foundation
import RichPushCore

/// The object-storage backend: S3 requests for reads and writes, and a `CacheLease` (Redis) as the hold on a key.
/// Without a lease a key is not held across hosts (each host may render it once).
struct ObjectStorageBackend: CacheBackend {
    let configuration: ObjectStorageConfiguration
    let client: ObjectStorageClient
    let lease: (any CacheLease)?
    /// The store's memory of fresh outcomes: a rewritten sidecar is forgotten there at once.
    let memory: OutcomeMemory

    var rules: CacheFreshnessRules { configuration.rules }

    /// The object under its final key first, then its sidecar: a sidecar never describes bytes that are not there.
    /// A re-render in another format keeps the old object while a pending push may still use it (a `retired/`
    /// record until its `retainUntil`, as in the file store), and deletes it otherwise.
    func publish(
        _ object: CachedObject, bytes: Data, replacing previous: CachedObject?, deadline: ContinuousClock.Instant
    ) async throws(CacheError) {
        // The resolver hashed the bytes for the sidecar; the signed PUT reuses that digest as its payload hash.
        let digest = object.contentSHA256
        let mediaType = object.format.mediaType
        try await client.put(
            object.relativePath, body: bytes, bodySHA256: digest, contentType: mediaType,
            cacheControl: "public, max-age=31536000, immutable", metadata: [("sha256", digest)], deadline: deadline)
        try await writeSidecar(object, deadline: deadline)

        if let previous, previous.relativePath != object.relativePath {
            if let until = previous.retainUntil, until > object.fetchedAt {
                try await client.put(
                    CacheLayout.relativeRetiredPath(object.key, fileExtension: previous.fileExtension),
                    body: try CacheJSON.encode(previous, path: previous.relativePath), contentType: "application/json",
                    cacheControl: "no-store", deadline: deadline)
            } else {
                try await client.delete(previous.relativePath, deadline: deadline)
            }
        }
    }

    // MARK: Lease

    /// One lease per key and store location, so stores on different buckets or prefixes never contend.
    func leaseName(_ key: CacheKey) -> String {
        "richpush:lease:\(configuration.location.description):\(key.hexDigest)"
    }

    /// Takes the key's lease, polling (50 ms, growing to 400 ms) while another host holds it; each poll also looks
    /// for what that host published, and returns it. Bounded by the deadline and `leaseWaitTimeout`.
    func hold(
        _ key: CacheKey, deadline: ContinuousClock.Instant, look: () async throws(CacheError) -> CacheOutcome?
    ) async throws(CacheError) -> CacheHoldResult<String?> {
        // Without a lease each host renders a key on its own: the hold is this process's single-flight only.
        guard let lease else { return .held(nil, keepsOthersOut: false) }
        let clock = configuration.clock
        let limit = min(deadline, clock.instant + configuration.leaseWaitTimeout)
        var pause = Duration.milliseconds(50)
        while true {
            // The lease outlives the deadline a little, so that a holder never loses it while publishing; a holder
            // that dies frees it after that.
            let timeToLive = max(deadline - clock.instant, .seconds(1)) + .seconds(5)
            if let token = try await lease.acquire(leaseName(key), timeToLive: timeToLive) { return .held(token, keepsOthersOut: true) }
            if let answer = try await look() { return .answered(answer) }
            if clock.instant + pause >= limit {
                if limit >= deadline { throw CacheError.deadlineExceeded }
                throw CacheError.lockTimeout(key: key.hexDigest)
            }
            do {
                try await Task.sleep(for: pause)
            } catch {
                throw CacheError.cancelled
            }
            pause = min(pause * 2, .milliseconds(400))
        }
    }

    /// Takes the key's lease without waiting, for maintenance, which skips a busy key rather than wait: `.held`
    /// (with no token when no lease is configured), or nil while another host holds it.
    func attemptLease(_ key: CacheKey, timeToLive: Duration) async throws(CacheError) -> CacheHoldResult<String?>? {
        guard let lease else { return .held(nil, keepsOthersOut: false) }
        return try await lease.acquire(leaseName(key), timeToLive: timeToLive).map { .held($0, keepsOthersOut: true) }
    }

    /// Runs `body`, then gives back the lease `token` holds (if any), whether `body` returned or threw.
    func releasingLease<Value>(
        _ key: CacheKey, token: String?, _ body: () async throws(CacheError) -> Value
    ) async throws(CacheError) -> Value {
        do throws(CacheError) {
            let value = try await body()
            await releaseLease(key, token: token)
            return value
        } catch {
            await releaseLease(key, token: token)
            throw error
        }
    }

    func release(_ hold: String?, for key: CacheKey) async {
        await releaseLease(key, token: hold)
    }

    private func releaseLease(_ key: CacheKey, token: String?) async {
        guard let lease, let token else { return }
        await lease.release(leaseName(key), token: token)
    }

    // MARK: Reading and writing metadata

    /// The object if its sidecar exists and describes this key's object path; nil when absent or unreadable.
    func readObject(_ key: CacheKey, deadline: ContinuousClock.Instant) async throws(CacheError) -> CachedObject? {
        guard let data = try await client.get(CacheLayout.relativeSidecarPath(key), deadline: deadline) else {
            return nil
        }
        return Self.sidecar(from: data, key: key)
    }

    /// The decoded sidecar of `key`, or nil when it does not decode or does not describe `key`'s own object.
    static func sidecar(from data: Data, key: CacheKey) -> CachedObject? {
        guard let object = CacheJSON.decode(CachedObject.self, from: data), object.describesOwnObject(of: key) else {
            return nil
        }
        return object
    }

    func readFailure(_ key: CacheKey, deadline: ContinuousClock.Instant) async throws(CacheError) -> CachedFailure? {
        guard let data = try await client.get(CacheLayout.relativeNegativePath(key), deadline: deadline),
            let failure = CacheJSON.decode(CachedFailure.self, from: data), failure.key == key
        else { return nil }
        return failure
    }

    func writeSidecar(_ object: CachedObject, deadline: ContinuousClock.Instant) async throws(CacheError) {
        let path = CacheLayout.relativeSidecarPath(object.key)
        try await client.put(
            path, body: try CacheJSON.encode(object, path: path), contentType: "application/json",
            cacheControl: "no-store", deadline: deadline)
        memory.forget(object.key)
    }

    func writeFailure(_ failure: CachedFailure, deadline: ContinuousClock.Instant) async throws(CacheError) {
        let path = CacheLayout.relativeNegativePath(failure.key)
        try await client.put(
            path, body: try CacheJSON.encode(failure, path: path), contentType: "application/json",
            cacheControl: "no-store", deadline: deadline)
    }

    func removeFailure(_ key: CacheKey, deadline: ContinuousClock.Instant) async throws(CacheError) {
        try await client.delete(CacheLayout.relativeNegativePath(key), deadline: deadline)
    }

}
