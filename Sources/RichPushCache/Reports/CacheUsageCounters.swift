import Foundation

/// Hit and miss counters shared by every process using one cache root, in `counters.json`. Each process adds its
/// deltas under `locks/counters.lock` at most once per `usageWriteInterval`, so counting costs no I/O per request.
struct CacheUsageCounters: Sendable, Hashable, Codable {
    var hits = 0
    var misses = 0
    var revalidations = 0
    var negativeHits = 0

    var isEmpty: Bool { self == CacheUsageCounters() }

    mutating func add(_ other: CacheUsageCounters) {
        hits += other.hits
        misses += other.misses
        revalidations += other.revalidations
        negativeHits += other.negativeHits
    }

    mutating func count(_ outcome: CacheOutcome) {
        switch outcome {
        case .hit: hits += 1
        case .produced: misses += 1
        case .revalidated:
            misses += 1
            revalidations += 1
        case .failed(_, let cached):
            if cached { negativeHits += 1 } else { misses += 1 }
        }
    }

    static func read(layout: CacheLayout) throws(CacheError) -> CacheUsageCounters {
        guard let data = try CacheFileSystem.readFile(layout.countersPath) else { return CacheUsageCounters() }
        return CacheJSON.decode(CacheUsageCounters.self, from: data) ?? CacheUsageCounters()
    }

    /// Adds `delta` to the shared file. With `wait` false it gives up (returning false) when another process is
    /// updating the file right now.
    static func merge(
        _ delta: CacheUsageCounters, layout: CacheLayout, wait: Bool
    ) async throws(CacheError) -> Bool {
        let lock: CacheFileLock
        if wait {
            let limit = ContinuousClock.now + .seconds(5)
            guard case .held(let held, _) = try await CacheFileLock.acquire(
                layout.countersLockPath, key: CacheKey(sourceURL: "counters", variant: "", rendererVersion: ""),
                limit: limit, deadline: limit)
            else { return false }
            lock = held
        } else {
            guard let attempted = try CacheFileLock.attempt(layout.countersLockPath) else { return false }
            lock = attempted
        }
        defer { lock.release() }
        var total = try read(layout: layout)
        total.add(delta)
        try CacheFileSystem.replaceAtomically(
            layout.countersPath, data: try CacheJSON.encode(total, path: layout.countersPath),
            temporaryPath: layout.temporaryPath(named: "counters"))
        return true
    }
}
