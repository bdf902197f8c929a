import Foundation
import Synchronization
import RichPushCore

/// A content-addressed media store in a directory tree that a CDN serves.
///
/// Layout under `root`:
/// - `objects/ab/cd/<key>.<jpg|png|gif>` — the bytes the CDN serves, and `objects/ab/cd/<key>.json`, the
///   `CachedObject` sidecar. An object exists for readers only when both exist and the file has the recorded size.
/// - `negative/ab/cd/<key>.json` — `CachedFailure` entries; `retired/ab/cd/<key>.<ext>.json` — old files kept for
///   pending pushes after a re-render changed the format.
/// - `tmp/` — files being written, named after their key; `locks/<key>.lock` — `flock` files;
///   `quarantine/` — what `verify(repair: true)` moved aside; `counters.json` — shared hit/miss counters.
///
/// Safe across tasks, processes and hosts sharing the directory: publishes are fsynced writes plus atomic renames,
/// and one production per key runs at a time (in-process single-flight here, `flock` across processes; on a
/// network file system this needs working `flock`, as on NFSv4 with Linux clients). The actor only serializes the
/// usage flushes; lookups, resolutions and file I/O run off it (`CacheDisk`, `SingleFlight`, and a `Mutex` for the
/// usage counts), so a warm hit never waits for the actor and different keys proceed in parallel; a key read or
/// published within `memoryHitDuration` is answered from memory without touching the disk. A production
/// that every caller stopped waiting for still runs to completion and publishes, bounded by the first caller's
/// deadline and the producer itself.
public actor FileMediaStore: MediaStore {
    public nonisolated let configuration: CacheConfiguration
    let disk: CacheDisk

    private struct PendingUsage {
        var hits = 0
        var lastUsedAt = Date.distantPast
        var lastWrite = ContinuousClock.Instant.now
    }

    /// Hits and counters not yet written, shared by every caller without an actor hop.
    private struct UsageLedger {
        var pending: [CacheKey: PendingUsage] = [:]
        var counters = CacheUsageCounters()
        var lastCounterWrite = ContinuousClock.Instant.now
        var lastScan = ContinuousClock.Instant.now

        /// Counts one outcome; true when a flush scan is due.
        mutating func record(_ key: CacheKey, _ outcome: CacheOutcome, scanEvery: Duration) -> Bool {
            counters.count(outcome)
            if case .hit = outcome {
                pending[key, default: PendingUsage()].hits += 1
                pending[key]?.lastUsedAt = Date()
            }
            return ContinuousClock.now - lastScan >= scanEvery
        }
    }

    private let singleFlight = SingleFlight()
    /// Resolutions started by this store instance; callers that joined one in flight do not count. For tests.
    var flightsStarted: Int { singleFlight.flightsStarted }
    private let ledger = Mutex(UsageLedger())
    private let memory: OutcomeMemory

    /// Creates the directory tree if needed. Throws `invalidConfiguration` for a public base URL that is not
    /// http(s) or carries a query or fragment (device extensions need plain URLs).
    public func checkReadiness() async throws(CacheError) {
        let probe = disk.layout.temporaryPath(named: "readiness")
        try CacheFileSystem.writeNewFile(probe, data: Data("ok".utf8))
        _ = CacheFileSystem.remove(probe)
    }

    public init(configuration: CacheConfiguration) throws(CacheError) {
        try CacheLayout.checkPublicBaseURL(configuration.publicBaseURL)
        self.configuration = configuration
        self.disk = CacheDisk(configuration: configuration)
        self.memory = OutcomeMemory(duration: configuration.memoryHitDuration)
        try disk.createDirectories()
    }

    // MARK: MediaStore

    public nonisolated func object(
        for key: CacheKey, sourceURL: String, variant: String, retainUntil: Date?, deadline: ContinuousClock.Instant,
        produce: @escaping @Sendable (CachedObject?) async throws -> CacheProduction
    ) async throws(CacheError) -> CacheOutcome {
        if Task.isCancelled { throw CacheError.cancelled }
        if ContinuousClock.now >= deadline { throw CacheError.deadlineExceeded }
        if let answer = await immediateOutcome(for: key, retainUntil: retainUntil) { return answer }
        let resolver = CacheResolver(backend: disk)
        let outcome = try await singleFlight.storeOutcome(
            for: key, retainUntil: retainUntil, deadline: deadline, rules: disk.rules, memory: memory
        ) { () async throws(CacheError) in
            try await resolver.resolve(
                key: key, sourceURL: sourceURL, variant: variant, retainUntil: retainUntil, deadline: deadline,
                produce: produce)
        } raiseRetention: { (date: Date) async throws(CacheError) in
            try await resolver.raiseRetention(key, to: date, deadline: deadline)
        }
        await account(key: key, outcome: outcome)
        return outcome
    }

    /// The common case of a warm cache: a fresh object that already covers the requested retention, or a live
    /// negative entry, answered from memory within `memoryHitDuration` of its last read, else from a stat or two (and
    /// a small read when the sidecar is not memoized), with no flight task or lock. A read error is not an answer:
    /// `object(for:…)` then resolves the key and reports it.
    public nonisolated func immediateOutcome(for key: CacheKey, retainUntil: Date?) async -> CacheOutcome? {
        guard singleFlight.isIdle(key) else { return nil }
        let answer: CacheOutcome
        if let remembered = memory.answer(for: key, retainUntil: retainUntil, rules: disk.rules) {
            answer = remembered
        } else if let read = try? disk.answerWithoutLock(key, retainUntil: retainUntil) {
            memory.remember(read)
            answer = read
        } else {
            return nil
        }
        await account(key: key, outcome: answer)
        return answer
    }

    public func lookup(_ key: CacheKey) async throws(CacheError) -> CachedObject? {
        try await read(key)
    }

    /// `publicBaseURL` without trailing slashes, `/`, and the object's relative path. No I/O.
    public nonisolated func publicURL(for object: CachedObject) -> String {
        CacheLayout.publicURL(base: configuration.publicBaseURL, relativePath: object.relativePath)
    }

    /// Scans every sidecar and negative entry (cost grows with the store), after writing this process's pending
    /// counters.
    public func statistics() async throws(CacheError) -> CacheStatistics {
        try await flushUsage(force: true)
        return try await Self.scanStatistics(disk)
    }

    /// Evicts least-recently-used objects until the store fits `maximumBytes`, and objects unused for longer than
    /// `maximumAge`; never an object whose `retainUntil` is in the future or whose lock is held (both reported).
    /// Also removes expired negative entries and stale temporary files. Scans and stats every entry.
    public func collectGarbage(
        maximumBytes: Int?, maximumAge: Duration?
    ) async throws(CacheError) -> GarbageCollectionReport {
        try await flushUsage(force: true)
        defer { memory.forgetAll() }
        return try await Self.runGarbageCollection(disk, maximumBytes: maximumBytes, maximumAge: maximumAge)
    }

    /// Re-hashes every object (reads all bytes once) and checks it against its sidecar. Without `repair` it only
    /// reports; with `repair`, mismatched objects go to `quarantine/` and orphans and temporary leftovers are
    /// deleted. Keys whose lock is held are skipped.
    public func verify(repair: Bool) async throws(CacheError) -> VerificationReport {
        defer { memory.forgetAll() }
        return try await Self.runVerification(disk, repair: repair)
    }

    /// Writes this instance's pending hit counts, last-used times and hit/miss counters now (they are otherwise
    /// written at most once per `usageWriteInterval`). Call before a process exits. Costs one sidecar rewrite per
    /// key with pending hits, plus one counters update.
    public func flushUsage() async throws(CacheError) {
        try await flushUsage(force: true)
    }

    // MARK: Usage

    private nonisolated func account(key: CacheKey, outcome: CacheOutcome) async {
        let flushIsDue = ledger.withLock { $0.record(key, outcome, scanEvery: scanInterval) }
        // Usage bookkeeping must never fail a request; errors are dropped and the counts retried later.
        if flushIsDue { try? await flushUsage(force: false) }
    }

    /// Scanning the pending keys costs O(keys); it happens at most once a second (or per interval, if shorter).
    private nonisolated var scanInterval: Duration { min(configuration.usageWriteInterval, .seconds(1)) }

    /// Writes pending per-key hits (throttled per key) and counters (throttled per process). `force` writes
    /// everything now, waiting for the counters lock. Runs on the actor, so flushes never overlap; hits recorded
    /// meanwhile go on accumulating in the ledger.
    private func flushUsage(force: Bool) async throws(CacheError) {
        let now = ContinuousClock.now
        let interval = configuration.usageWriteInterval
        let scanInterval = self.scanInterval
        let dueKeys = ledger.withLock { ledger -> [CacheKey]? in
            guard force || now - ledger.lastScan >= scanInterval else { return nil }
            ledger.lastScan = now
            return ledger.pending.filter { force || now - $0.value.lastWrite >= interval }.map(\.key)
        }
        for key in dueKeys ?? [] {
            // Take the counts out before suspending, so that no later flush writes them a second time.
            guard let usage = ledger.withLock({ $0.pending.removeValue(forKey: key) }), usage.hits > 0 else { continue }
            var written = false
            var failure: CacheError?
            do {
                written = try await Self.recordUsage(disk, key: key, usage: usage)
            } catch {
                failure = error
            }
            ledger.withLock { ledger in
                var merged = ledger.pending[key] ?? PendingUsage(hits: 0, lastUsedAt: usage.lastUsedAt, lastWrite: now)
                if written {
                    // Counts that arrived meanwhile wait a full interval; this entry remembers the write time.
                    merged.lastWrite = now
                } else {
                    merged.hits += usage.hits
                    merged.lastUsedAt = max(merged.lastUsedAt, usage.lastUsedAt)
                    merged.lastWrite = usage.lastWrite
                }
                ledger.pending[key] = merged.hits > 0 ? merged : nil
            }
            if let failure { throw failure }
        }
        let delta = ledger.withLock { ledger -> CacheUsageCounters? in
            guard !ledger.counters.isEmpty && (force || now - ledger.lastCounterWrite >= interval) else { return nil }
            defer {
                ledger.counters = CacheUsageCounters()
                ledger.lastCounterWrite = now
            }
            return ledger.counters
        }
        guard let delta else { return }
        var merged = false
        do {
            merged = try await CacheUsageCounters.merge(delta, layout: disk.layout, wait: force)
        } catch {
            ledger.withLock { $0.counters.add(delta) }
            throw error
        }
        if !merged { ledger.withLock { $0.counters.add(delta) } }
    }

    // MARK: Off-actor helpers

    private nonisolated func read(_ key: CacheKey) async throws(CacheError) -> CachedObject? {
        try disk.readObject(key)
    }

    private nonisolated static func recordUsage(
        _ disk: CacheDisk, key: CacheKey, usage: PendingUsage
    ) async throws(CacheError) -> Bool {
        try disk.recordUsage(key, hits: usage.hits, lastUsedAt: usage.lastUsedAt)
    }
}
