import Foundation
import RichPushCore

extension FileMediaStore {
    /// See `collectGarbage(maximumBytes:maximumAge:)`. Each eviction happens under the key's lock, taken without
    /// waiting (a held lock means a writer is busy with the key, so it is skipped and reported), and re-reads the
    /// sidecar under that lock so a concurrent refresh or retention raise is honoured.
    static func runGarbageCollection(
        _ disk: CacheDisk, maximumBytes: Int?, maximumAge: Duration?
    ) async throws(CacheError) -> GarbageCollectionReport {
        var report = GarbageCollectionReport()
        let now = disk.rules.now
        let layout = disk.layout

        var objects: [CachedObject] = []
        for shard in CacheScan.shards(of: layout.objectsDirectory, named: "objects") {
            for name in shard.names where name.hasSuffix(".json") {
                guard let key = CacheScan.key(ofFileNamed: name), let object = try disk.readObject(key) else {
                    continue
                }
                objects.append(object)
            }
        }
        try await report.evictLeastRecentlyUsed(
            objects, maximumBytes: maximumBytes, maximumAge: maximumAge, now: now
        ) { object, overBudget throws(CacheError) in
            guard let lock = try CacheFileLock.attempt(layout.lockPath(object.key)) else {
                return .kept(GarbageCollectionReport.KeptObject(object, reason: "locked"))
            }
            defer { lock.release() }
            guard let current = try disk.readObject(object.key) else { return .skipped }
            if let retainUntil = current.retainUntil, retainUntil > now {
                return .kept(GarbageCollectionReport.KeptObject(current, reason: "retained"))
            }
            if current.lastUsedAt > object.lastUsedAt && !overBudget {
                return .skipped  // used since the scan; no longer too old
            }
            // Sidecar first: between the two unlinks the object reads as absent, never as a sidecar without bytes
            // that a reader would serve.
            CacheFileSystem.remove(layout.sidecarPath(object.key))
            CacheFileSystem.remove(layout.absolutePath(current.relativePath))
            CacheFileSystem.syncDirectory(layout.objectDirectory(object.key))
            if try disk.readFailure(object.key) == nil {
                lock.removeFileWhileHeld()
            }
            return .evicted(bytes: current.bytes)
        }

        report.removedNegativeEntries = try removeExpiredNegativeEntries(disk, now: now)
        report.removedTemporaryFiles = removeStaleTemporaryFiles(disk, now: now)
        report.removedRetiredObjects = try removeExpiredRetiredObjects(disk, now: now)
        return report
    }

    private static func removeExpiredNegativeEntries(_ disk: CacheDisk, now: Date) throws(CacheError) -> Int {
        var removed = 0
        for shard in CacheScan.shards(of: disk.layout.negativeDirectory, named: "negative") {
            for name in shard.names where name.hasSuffix(".json") {
                guard let key = CacheScan.key(ofFileNamed: name) else { continue }
                guard let failure = try disk.readFailure(key), failure.expiresAt <= now else { continue }
                guard let lock = try CacheFileLock.attempt(disk.layout.lockPath(key)) else { continue }
                defer { lock.release() }
                guard let current = try disk.readFailure(key), current.expiresAt <= now else { continue }
                if CacheFileSystem.remove(disk.layout.negativePath(key)) { removed += 1 }
                if try disk.readSidecar(key) == nil { lock.removeFileWhileHeld() }
            }
        }
        return removed
    }

    private static func removeExpiredRetiredObjects(_ disk: CacheDisk, now: Date) throws(CacheError) -> Int {
        var removed = 0
        for shard in CacheScan.shards(of: disk.layout.retiredDirectory, named: "retired") {
            var keys = Set<CacheKey>()
            for name in shard.names { if let key = CacheScan.key(ofFileNamed: name) { keys.insert(key) } }
            for key in keys.sorted(by: { $0.hexDigest < $1.hexDigest }) {
                guard let lock = try CacheFileLock.attempt(disk.layout.lockPath(key)) else { continue }
                defer { lock.release() }
                let live = try disk.readSidecar(key)
                for retired in try disk.readRetired(key) where (retired.retainUntil ?? .distantPast) <= now {
                    if live?.relativePath != retired.relativePath {
                        CacheFileSystem.remove(disk.layout.absolutePath(retired.relativePath))
                    }
                    CacheFileSystem.remove(disk.layout.retiredPath(key, fileExtension: retired.fileExtension))
                    removed += 1
                }
            }
        }
        return removed
    }

    /// Temporary files older than `temporaryFileMaximumAge`; a live writer finishes (or hits its deadline) long
    /// before that.
    private static func removeStaleTemporaryFiles(_ disk: CacheDisk, now: Date) -> Int {
        let limit = disk.configuration.temporaryFileMaximumAge.timeInterval
        var removed = 0
        for name in CacheFileSystem.list(disk.layout.temporaryDirectory) {
            let path = disk.layout.temporaryDirectory + "/" + name
            guard let status = CacheFileSystem.status(path), now.timeIntervalSince(status.modifiedAt) > limit else {
                continue
            }
            if CacheFileSystem.remove(path) { removed += 1 }
        }
        return removed
    }
}
