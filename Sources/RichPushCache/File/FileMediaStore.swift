import Foundation
import RichPushCore
import Synchronization

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
public actor FileMediaStore: MaintainedMediaStore {
    public nonisolated let configuration: CacheConfiguration
    /// The caching shared with the object store, over the directory.
    private nonisolated let cache: CachingStore<CacheDisk>
    nonisolated var disk: CacheDisk { cache.backend }

    private struct PendingUsage {
        var hits = 0
        var lastUsedAt = Date.distantPast
        var lastWrite: ContinuousClock.Instant
    }

    /// Hits not yet written, shared by every caller without an actor hop. (The hit/miss counters are the caching
    /// store's; they are merged into `counters.json` here.)
    private struct UsageLedger {
        var pending: [CacheKey: PendingUsage] = [:]
        var lastCounterWrite: ContinuousClock.Instant
        var lastScan: ContinuousClock.Instant

        /// Notes one hit; true when a flush scan is due.
        mutating func record(
            _ key: CacheKey, _ outcome: CacheOutcome, scanEvery: Duration, clock: any CacheClock
        ) -> Bool {
            let now = clock.instant
            if case .hit = outcome {
                // Both changes in one access to the entry: a warm job hashes its key here once.
                let usedAt = clock.date
                func touch(_ usage: inout PendingUsage) {
                    usage.hits += 1
                    usage.lastUsedAt = usedAt
                }
                touch(&pending[key, default: PendingUsage(lastWrite: now)])
            }
            return now - lastScan >= scanEvery
        }
    }

    package nonisolated var flightsStarted: Int { cache.flightsStarted }
    package nonisolated var callersWaiting: Int { cache.callersWaiting }
    package nonisolated var directoryReads: CacheLookCounts? { disk.looks }
    private let ledger: Mutex<UsageLedger>

    /// Creates the directory tree if needed. Throws `invalidConfiguration` for a public base URL that is not
    /// http(s) or carries a query or fragment (device extensions need plain URLs).
    public func checkReadiness() async throws(CacheError) {
        let probe = disk.layout.temporaryPath(named: "readiness")
        try CacheFileSystem.writeNewFile(probe, data: Data("ok".utf8))
        _ = CacheFileSystem.remove(probe)
    }

    public init(configuration: CacheConfiguration) throws(CacheError) {
        self.configuration = configuration
        let start = configuration.clock.instant
        self.ledger = Mutex(UsageLedger(lastCounterWrite: start, lastScan: start))
        self.cache = try CachingStore(
            publicBaseURL: configuration.publicBaseURL, memoryHitDuration: configuration.memoryHitDuration,
            clock: configuration.clock
        ) { _ in CacheDisk(configuration: configuration) }
        try cache.backend.createDirectories()
    }

    // MARK: MediaStore

    public nonisolated func object(for request: CacheRequest, after miss: CacheMiss?) async throws(CacheError) -> CacheOutcome {
        let outcome = try await cache.object(for: request, after: miss)
        await account(key: request.key, outcome: outcome)
        return outcome
    }

    /// The common case of a warm cache: a fresh object that already covers the requested retention, or a live
    /// negative entry, answered from memory within `memoryHitDuration` of its last read, else from a stat or two (and
    /// a small read when the sidecar is not memoized), with no flight task or lock. A miss carries that read, so
    /// that a cold key goes from it to the key's lock, whose re-check is its only other read.
    public nonisolated func look(for key: CacheKey, retainUntil: Date?) async -> CacheLook {
        let look = cache.look(for: key, retainUntil: retainUntil)
        if let answer = look.outcome { await account(key: key, outcome: answer) }
        return look
    }

    public func lookup(_ key: CacheKey) async throws(CacheError) -> CachedObject? {
        try await read(key)
    }

    /// `publicBaseURL` without trailing slashes, `/`, and the object's relative path. No I/O.
    public nonisolated func publicURL(for object: CachedObject) -> String {
        cache.publicURL(for: object)
    }

    /// Scans every sidecar and negative entry (cost grows with the store), after writing this process's pending
    /// counters.
    package func statistics() async throws(CacheError) -> CacheStatistics {
        try await flushUsage(force: true)
        return try await Self.scanStatistics(disk)
    }

    /// Evicts least-recently-used objects until the store fits `maximumBytes`, and objects unused for longer than
    /// `maximumAge`; never an object whose `retainUntil` is in the future or whose lock is held (both reported).
    /// Also removes expired negative entries and stale temporary files. Scans and stats every entry.
    package func collectGarbage(
        maximumBytes: Int?, maximumAge: Duration?
    ) async throws(CacheError) -> GarbageCollectionReport {
        try await flushUsage(force: true)
        defer { cache.memory.forgetAll() }
        return try await Self.runGarbageCollection(disk, maximumBytes: maximumBytes, maximumAge: maximumAge)
    }

    /// Re-hashes every object (reads all bytes once) and checks it against its sidecar. Without `repair` it only
    /// reports; with `repair`, mismatched objects go to `quarantine/` and orphans and temporary leftovers are
    /// deleted. Keys whose lock is held are skipped.
    package func verify(repair: Bool) async throws(CacheError) -> VerificationReport {
        defer { cache.memory.forgetAll() }
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
        let flushIsDue = ledger.withLock { $0.record(key, outcome, scanEvery: scanInterval, clock: configuration.clock) }
        // Usage bookkeeping must never fail a request; errors are dropped and the counts retried later.
        if flushIsDue { try? await flushUsage(force: false) }
    }

    /// Scanning the pending keys costs O(keys); it happens at most once a second (or per interval, if shorter).
    private nonisolated var scanInterval: Duration { min(configuration.usageWriteInterval, .seconds(1)) }

    /// Writes pending per-key hits (throttled per key) and counters (throttled per process). `force` writes
    /// everything now, waiting for the counters lock. Runs on the actor, so flushes never overlap; hits recorded
    /// meanwhile go on accumulating in the ledger.
    private func flushUsage(force: Bool) async throws(CacheError) {
        let now = configuration.clock.instant
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
            guard force || now - ledger.lastCounterWrite >= interval else { return nil }
            let counted = cache.counters.withLock { counters in
                defer { counters = CacheUsageCounters() }
                return counters
            }
            guard !counted.isEmpty else { return nil }
            ledger.lastCounterWrite = now
            return counted
        }
        guard let delta else { return }
        var merged = false
        do {
            merged = try await CacheUsageCounters.merge(delta, layout: disk.layout, wait: force)
        } catch {
            cache.counters.withLock { $0.add(delta) }
            throw error
        }
        if !merged { cache.counters.withLock { $0.add(delta) } }
    }

    // MARK: Off-actor helpers

    private nonisolated func read(_ key: CacheKey) async throws(CacheError) -> CachedObject? {
        try disk.readObject(key)
    }

    private nonisolated static func recordUsage(
        _ disk: CacheDisk, key: CacheKey, usage: PendingUsage
    ) async throws(CacheError) -> Bool {
        try await BlockingExecutor.shared.complete { () throws(CacheError) in
            try disk.recordUsage(key, hits: usage.hits, lastUsedAt: usage.lastUsedAt)
        }
    }
}
