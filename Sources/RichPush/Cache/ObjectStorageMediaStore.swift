import Foundation
import Synchronization

/// A content-addressed media store in an S3-compatible bucket that a CDN serves, for workers on many hosts.
///
/// The keys below the prefix mirror the file store's layout: `objects/ab/cd/<key>.<jpg|png|gif>` (served with its
/// exact `Content-Type` and a year-long immutable `Cache-Control`), its `CachedObject` sidecar
/// `objects/ab/cd/<key>.json` written after it, `negative/ab/cd/<key>.json` and `retired/…` records. Every write is
/// one PUT of a whole object under its final key, which S3 applies all or nothing, so no reader ever sees part of
/// an object; a sidecar exists only after its object does, and GC deletes the sidecar first.
///
/// Single-flight is per process (`SingleFlight`) and, with a `CacheLease` (Redis), across hosts: the host holding
/// a key's lease renders it, the others poll the sidecar until it appears. Without a lease each host may render a
/// key once. Requests share the fetch layer's libcurl multi handle and are signed by libcurl (SigV4).
///
/// Costs: a cold key is two GETs, the lease, the render and two or three PUTs; a warm key is one GET of the sidecar,
/// then nothing for `memoryHitDuration`. Hit counts and last-used times are not written back per hit (that would
/// be a PUT per hit); `lastUsedAt` moves when the sidecar is rewritten (render, revalidation, retention raise).
public final class ObjectStorageMediaStore: MediaStore {
    public let configuration: ObjectStorageConfiguration
    let client: ObjectStorageClient
    let lease: (any CacheLease)?
    let rules: CacheFreshnessRules
    private let singleFlight = SingleFlight()
    private let memory: OutcomeMemory
    let counters = Mutex(CacheUsageCounters())

    /// What waiting for a key's lease ended with.
    enum LeaseWait {
        /// This host holds the lease (token), or no lease is configured (nil).
        case held(String?)
        /// Another host published an object or a failure while this one waited.
        case answered(CacheOutcome)
    }

    /// No I/O; call `checkAccess()` before taking jobs. Throws `invalidConfiguration` for a public base URL that is
    /// not http(s) or carries a query or fragment.
    public init(
        configuration: ObjectStorageConfiguration, fetcher: Fetcher, lease: (any CacheLease)?
    ) throws(CacheError) {
        try CacheLayout.checkPublicBaseURL(configuration.publicBaseURL)
        self.configuration = configuration
        self.client = ObjectStorageClient(location: configuration.location, fetcher: fetcher)
        self.lease = lease
        self.rules = configuration.rules
        self.memory = OutcomeMemory(duration: configuration.memoryHitDuration)
    }

    /// Resolutions started by this instance (callers that joined one in flight do not count). For tests.
    var flightsStarted: Int { singleFlight.flightsStarted }

    /// One HEAD on the bucket: throws a single clear error for a missing bucket or refused credentials.
    public func checkAccess() async throws(CacheError) {
        try await client.checkAccess(deadline: maintenanceDeadline())
    }

    public func checkReadiness() async throws(CacheError) {
        try await checkAccess()
        try await lease?.checkAvailability()
    }

    // MARK: MediaStore

    public func object(
        for key: CacheKey, sourceURL: String, variant: String, retainUntil: Date?, deadline: ContinuousClock.Instant,
        produce: @escaping @Sendable (CachedObject?) async throws -> CacheProduction
    ) async throws(CacheError) -> CacheOutcome {
        if Task.isCancelled { throw CacheError.cancelled }
        if ContinuousClock.now >= deadline { throw CacheError.deadlineExceeded }
        if let answer = await immediateOutcome(for: key, retainUntil: retainUntil) { return answer }
        let outcome = try await singleFlight.storeOutcome(
            for: key, retainUntil: retainUntil, deadline: deadline, rules: rules, memory: memory
        ) { () async throws(CacheError) in
            try await self.resolve(
                key: key, sourceURL: sourceURL, variant: variant, retainUntil: retainUntil, deadline: deadline,
                produce: produce)
        } raiseRetention: { (date: Date) async throws(CacheError) in
            try await self.raiseRetention(key, to: date, deadline: deadline)
        }
        return account(outcome)
    }

    /// A fresh object (covering `retainUntil`) or a live failure remembered from the last `memoryHitDuration`; no I/O.
    public func immediateOutcome(for key: CacheKey, retainUntil: Date?) async -> CacheOutcome? {
        memory.answer(for: key, retainUntil: retainUntil, rules: rules).map(account)
    }

    /// The stored object, fresh or stale, read from storage; nil if absent.
    public func lookup(_ key: CacheKey) async throws(CacheError) -> CachedObject? {
        try await readObject(key, deadline: maintenanceDeadline())
    }

    /// `publicBaseURL` without trailing slashes, `/`, and the object's relative path. No I/O.
    public func publicURL(for object: CachedObject) -> String {
        CacheLayout.publicURL(base: configuration.publicBaseURL, relativePath: object.relativePath)
    }

    // MARK: Resolution

    /// One key, start to finish: a look for a fresh object or live failure; else the key's lease (or another
    /// host's answer), a second look, the producer, and the publish.
    private func resolve(
        key: CacheKey, sourceURL: String, variant: String, retainUntil: Date?, deadline: ContinuousClock.Instant,
        produce: @escaping @Sendable (CachedObject?) async throws -> CacheProduction
    ) async throws(CacheError) -> CacheOutcome {
        if let answer = try await answer(key, retainUntil: retainUntil, deadline: deadline) { return answer }

        let token: String?
        switch try await waitForLease(key, deadline: deadline, answerFromStorage: true) {
        case .answered(let outcome):
            guard let object = outcome.object, rules.needsRetention(object, until: retainUntil), let retainUntil else {
                return outcome
            }
            return .hit(try await raiseRetention(key, to: retainUntil, deadline: deadline) ?? object)
        case .held(let held):
            token = held
        }
        return try await releasingLease(key, token: token) { () async throws(CacheError) in
            try await resolveHoldingLease(
                key: key, sourceURL: sourceURL, variant: variant, retainUntil: retainUntil, deadline: deadline,
                produce: produce)
        }
    }

    /// A fresh object whose retention covers `retainUntil` (raised here if it does not), or a live failure; nil
    /// when the producer must run.
    private func answer(
        _ key: CacheKey, retainUntil: Date?, deadline: ContinuousClock.Instant
    ) async throws(CacheError) -> CacheOutcome? {
        if let object = try await readObject(key, deadline: deadline), object.isFresh() {
            guard rules.needsRetention(object, until: retainUntil), let retainUntil else { return .hit(object) }
            return .hit(try await raiseRetention(key, to: retainUntil, deadline: deadline) ?? object)
        }
        if let failure = try await readFailure(key, deadline: deadline), Date() < failure.expiresAt {
            return .failed(failure, cached: true)
        }
        return nil
    }

    private func resolveHoldingLease(
        key: CacheKey, sourceURL: String, variant: String, retainUntil: Date?, deadline: ContinuousClock.Instant,
        produce: @escaping @Sendable (CachedObject?) async throws -> CacheProduction
    ) async throws(CacheError) -> CacheOutcome {
        let current = try await readObject(key, deadline: deadline)
        if let current, current.isFresh() {
            return .hit(try await raiseRetentionHoldingLease(key, to: retainUntil, deadline: deadline) ?? current)
        }
        let previousFailure = try await readFailure(key, deadline: deadline)
        if let previousFailure, Date() < previousFailure.expiresAt {
            return .failed(previousFailure, cached: true)
        }

        let production = try await CacheProduction.make(by: produce, replacing: current)

        switch production {
        case .object(let bytes, let format, let fileExtension, let width, let height, let etag, let lastModified,
            let maxAge):
            let stored: CacheObjectFormat
            switch CacheObjectFormat.publishable(
                bytes: bytes, format: format, fileExtension: fileExtension, width: width, height: height)
            {
            case .success(let format): stored = format
            case .failure(let problem):
                return .failed(
                    try await recordFailure(key, code: "invalid_output", message: problem.reason, deadline: deadline),
                    cached: false)
            }
            let object = try await publish(
                key: key, sourceURL: sourceURL, variant: variant, bytes: bytes, width: width, height: height,
                format: stored, etag: etag, lastModified: lastModified, maxAge: maxAge, retainUntil: retainUntil,
                replacing: current, deadline: deadline)
            if previousFailure != nil { try await client.delete(CacheLayout.relativeNegativePath(key), deadline: deadline) }
            return .produced(object)
        case .notModified(let etag, let lastModified, let maxAge):
            guard var object = current else {
                throw CacheError.invalidProduction(key: key.hexDigest, reason: "notModified without a stored object")
            }
            object.revalidate(etag: etag, lastModified: lastModified, maxAge: maxAge, retainUntil: retainUntil, rules: rules)
            try await writeSidecar(object, deadline: deadline)
            return .revalidated(object)
        case .failure(let code, let message):
            return .failed(try await recordFailure(key, code: code, message: message, deadline: deadline), cached: false)
        }
    }

    /// The object under its final key first, then its sidecar: a sidecar never describes bytes that are not there.
    /// A re-render in another format keeps the old object while a pending push may still use it (a `retired/`
    /// record until its `retainUntil`, as in the file store), and deletes it otherwise.
    private func publish(
        key: CacheKey, sourceURL: String, variant: String, bytes: Data, width: Int, height: Int,
        format: CacheObjectFormat, etag: String?, lastModified: String?, maxAge: Duration?, retainUntil: Date?,
        replacing previous: CachedObject?, deadline: ContinuousClock.Instant
    ) async throws(CacheError) -> CachedObject {
        let now = Date().cacheMillisecondPrecision
        let relativePath = CacheLayout.relativeObjectPath(key, fileExtension: format.fileExtension)
        let digest = SHA256.hexDigest(of: bytes)
        try await client.put(
            relativePath, body: bytes, bodySHA256: digest, contentType: format.mediaType,
            cacheControl: "public, max-age=31536000, immutable", metadata: [("sha256", digest)], deadline: deadline)

        let object = CachedObject(
            publishedAt: now, key: key, sourceURL: sourceURL, variant: variant, width: width, height: height,
            byteCount: bytes.count, format: format, contentSHA256: digest, etag: etag, lastModified: lastModified,
            maxAge: maxAge, retainUntil: retainUntil, replacing: previous, relativePath: relativePath, rules: rules)
        try await writeSidecar(object, deadline: deadline)

        if let previous, previous.relativePath != relativePath {
            if let until = previous.retainUntil, until > now {
                try await client.put(
                    CacheLayout.relativeRetiredPath(key, fileExtension: previous.fileExtension),
                    body: try CacheJSON.encode(previous, path: previous.relativePath), contentType: "application/json",
                    cacheControl: "no-store", deadline: deadline)
            } else {
                try await client.delete(previous.relativePath, deadline: deadline)
            }
        }
        return object
    }

    private func recordFailure(
        _ key: CacheKey, code: String, message: String, deadline: ContinuousClock.Instant
    ) async throws(CacheError) -> CachedFailure {
        let failure = rules.failure(key, code: code, message: message)
        let path = CacheLayout.relativeNegativePath(key)
        try await client.put(
            path, body: try CacheJSON.encode(failure, path: path), contentType: "application/json",
            cacheControl: "no-store", deadline: deadline)
        return failure
    }

    // MARK: Retention

    /// Raises `retainUntil` under the key's lease, re-reading the sidecar so that no other host's raise is lost.
    private func raiseRetention(
        _ key: CacheKey, to requested: Date, deadline: ContinuousClock.Instant
    ) async throws(CacheError) -> CachedObject? {
        guard case .held(let token) = try await waitForLease(key, deadline: deadline, answerFromStorage: false) else {
            return nil
        }
        return try await releasingLease(key, token: token) { () async throws(CacheError) in
            try await raiseRetentionHoldingLease(key, to: requested, deadline: deadline)
        }
    }

    private func raiseRetentionHoldingLease(
        _ key: CacheKey, to requested: Date?, deadline: ContinuousClock.Instant
    ) async throws(CacheError) -> CachedObject? {
        guard var object = try await readObject(key, deadline: deadline) else { return nil }
        guard let requested, rules.needsRetention(object, until: requested) else { return object }
        object.retainUntil = rules.roundedRetention(requested)
        object.lastUsedAt = Date().cacheMillisecondPrecision
        try await writeSidecar(object, deadline: deadline)
        return object
    }

    // MARK: Lease

    /// One lease per key and store location, so stores on different buckets or prefixes never contend.
    func leaseName(_ key: CacheKey) -> String {
        "richpush:lease:\(configuration.location.description):\(key.hexDigest)"
    }

    /// Takes the key's lease, polling (50 ms, growing to 400 ms) while another host holds it. With
    /// `answerFromStorage`, each poll also looks for what that host published, and returns it. Bounded by the
    /// deadline and `leaseWaitTimeout`.
    private func waitForLease(
        _ key: CacheKey, deadline: ContinuousClock.Instant, answerFromStorage: Bool
    ) async throws(CacheError) -> LeaseWait {
        guard let lease else { return .held(nil) }
        let limit = min(deadline, ContinuousClock.now + configuration.leaseWaitTimeout)
        var pause = Duration.milliseconds(50)
        while true {
            // The lease outlives the deadline a little, so that a holder never loses it while publishing; a holder
            // that dies frees it after that.
            let timeToLive = max(deadline - ContinuousClock.now, .seconds(1)) + .seconds(5)
            if let token = try await lease.acquire(leaseName(key), timeToLive: timeToLive) { return .held(token) }
            if answerFromStorage, let answer = try await answer(key, retainUntil: nil, deadline: deadline) {
                return .answered(answer)
            }
            if ContinuousClock.now + pause >= limit {
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
    func attemptLease(_ key: CacheKey, timeToLive: Duration) async throws(CacheError) -> LeaseWait? {
        guard let lease else { return .held(nil) }
        return try await lease.acquire(leaseName(key), timeToLive: timeToLive).map { .held($0) }
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

    private func writeSidecar(_ object: CachedObject, deadline: ContinuousClock.Instant) async throws(CacheError) {
        let path = CacheLayout.relativeSidecarPath(object.key)
        try await client.put(
            path, body: try CacheJSON.encode(object, path: path), contentType: "application/json",
            cacheControl: "no-store", deadline: deadline)
        forget(object.key)
    }

    // MARK: Memory

    func forget(_ key: CacheKey) {
        memory.forget(key)
    }

    private func account(_ outcome: CacheOutcome) -> CacheOutcome {
        counters.withLock { $0.count(outcome) }
        return outcome
    }

    func maintenanceDeadline() -> ContinuousClock.Instant {
        ContinuousClock.now + configuration.maintenanceRequestTimeout
    }
}
