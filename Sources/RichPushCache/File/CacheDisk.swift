import Foundation
import RichPushCore

/// The store's file-system side: reading entries, publishing them atomically, and the locked resolution of one key.
/// A value type with no mutable state, so resolutions of different keys run in parallel off the store actor.
struct CacheDisk: Sendable {
    let configuration: CacheConfiguration
    let layout: CacheLayout
    /// Built once: warm lookups consult it for every media item.
    let rules: CacheFreshnessRules
    let sidecars = SidecarMemo()
    /// Reads of objects and negative entries (`CacheLookCounts`).
    let looks = CacheLookCounts()

    init(configuration: CacheConfiguration) {
        self.configuration = configuration
        self.layout = CacheLayout(root: configuration.root)
        self.rules = configuration.rules
    }

    func createDirectories() throws(CacheError) {
        for directory in [
            layout.root, layout.objectsDirectory, layout.negativeDirectory, layout.temporaryDirectory,
            layout.locksDirectory,
        ] {
            try CacheFileSystem.makeDirectory(directory)
        }
    }

    // MARK: Reading

    /// The sidecar as stored, without checking the object file; nil when absent or undecodable.
    func readSidecar(_ key: CacheKey) throws(CacheError) -> CachedObject? {
        let path = layout.sidecarPath(key)
        let before = CacheFileSystem.status(path)
        if let before, let known = sidecars.object(for: key, status: before) { return known }
        guard let data = try CacheFileSystem.readFile(path) else { return nil }
        guard let object = CacheJSON.decode(CachedObject.self, from: data), object.key == key else { return nil }
        // Remember it only if the file did not change while it was read.
        if let before, CacheFileSystem.status(path) == before { sidecars.remember(object, status: before) }
        return object
    }

    /// The object if both the sidecar and an object file of the recorded size exist at the expected path; a
    /// half-published or tampered entry reads as absent. Costs one small read and one stat.
    func readObject(_ key: CacheKey) throws(CacheError) -> CachedObject? {
        looks.countObjectLook()
        guard let object = try readSidecar(key) else { return nil }
        guard object.describesOwnObject(of: key),
            let status = CacheFileSystem.status(layout.absolutePath(object.relativePath)), status.isRegularFile,
            status.size == object.bytes
        else { return nil }
        return object
    }

    func readFailure(_ key: CacheKey) throws(CacheError) -> CachedFailure? {
        looks.countFailureLook()
        guard let data = try CacheFileSystem.readFile(layout.negativePath(key)) else { return nil }
        guard let failure = CacheJSON.decode(CachedFailure.self, from: data), failure.key == key else { return nil }
        return failure
    }

    // MARK: Writing

    func writeSidecar(_ object: CachedObject) throws(CacheError) {
        let path = layout.sidecarPath(object.key)
        let data = try CacheJSON.encode(object, path: path)
        try CacheFileSystem.replaceAtomically(
            path, data: data, temporaryPath: layout.temporaryPath(for: object.key, kind: "sidecar"))
    }

    func writeRetired(_ object: CachedObject) throws(CacheError) {
        let path = layout.retiredPath(object.key, fileExtension: object.fileExtension)
        try CacheFileSystem.makeDirectory((path as NSString).deletingLastPathComponent)
        let data = try CacheJSON.encode(object, path: path)
        try CacheFileSystem.replaceAtomically(
            path, data: data, temporaryPath: layout.temporaryPath(for: object.key, kind: "retired"))
    }

    /// Retired records of `key`, by file extension.
    func readRetired(_ key: CacheKey) throws(CacheError) -> [CachedObject] {
        let directory = layout.retiredDirectory + "/" + key.shardPath
        var result: [CachedObject] = []
        for name in CacheFileSystem.list(directory) where name.hasPrefix(key.hexDigest + ".") && name.hasSuffix(".json") {
            guard let data = try CacheFileSystem.readFile(directory + "/" + name),
                let object = CacheJSON.decode(CachedObject.self, from: data),
                // The path is about to be deleted by GC: it must be this key's own object path.
                object.describesOwnObject(of: key)
            else { continue }
            result.append(object)
        }
        return result
    }

    func writeFailure(_ failure: CachedFailure) throws(CacheError) {
        try CacheFileSystem.makeDirectory(layout.negativeDirectory(failure.key))
        let path = layout.negativePath(failure.key)
        let data = try CacheJSON.encode(failure, path: path)
        try CacheFileSystem.replaceAtomically(
            path, data: data, temporaryPath: layout.temporaryPath(for: failure.key, kind: "negative"))
    }

    /// Adds `hits` and advances `lastUsedAt` if the key's lock is free right now; returns false (and changes
    /// nothing) when a writer holds it, so callers keep the counts for a later attempt.
    ///
    /// LRU needs last-use times no finer than `usageWriteInterval`: a sidecar that already records a use that recent
    /// is left alone and the hits are dropped (returning true), so warm traffic, and every worker's flush at exit,
    /// does not cost an fsync per key. Per-object hit counts are therefore a lower bound.
    func recordUsage(_ key: CacheKey, hits: Int, lastUsedAt: Date) throws(CacheError) -> Bool {
        if let stored = try readObject(key),
            lastUsedAt.timeIntervalSince(stored.lastUsedAt) < configuration.usageWriteInterval.timeInterval
        {
            return true
        }
        guard let lock = try CacheFileLock.attempt(layout.lockPath(key)) else { return false }
        defer { lock.release() }
        guard var object = try readObject(key) else { return true }
        object.hits += hits
        object.lastUsedAt = max(object.lastUsedAt, lastUsedAt.cacheMillisecondPrecision)
        try writeSidecar(object)
        return true
    }

    // MARK: Resolution

    /// What a reader can answer on its own: a fresh object whose retention already reaches `retainUntil`, or a live
    /// negative entry. Nil when the key needs the locked resolution (absent, stale, or retention to raise).
    func answerWithoutLock(_ key: CacheKey, retainUntil: Date?) throws(CacheError) -> CacheOutcome? {
        if let object = try readObject(key) {
            guard rules.isFresh(object), !rules.needsRetention(object, until: retainUntil) else { return nil }
            return .hit(object)
        }
        if let failure = try readFailure(key), rules.isLive(failure) {
            return .failed(failure, cached: true)
        }
        return nil
    }
}

/// The file backend: local reads and writes, atomic publishing, and `flock` on `locks/<key>.lock` as the hold.
extension CacheDisk: CacheBackend {
    /// A stat or two and a small read: cheap enough to answer a warm key without a flight or a lock.
    /// A read error is not an answer: resolving the key reports it.
    func lookWithoutHold(_ key: CacheKey, retainUntil: Date?) -> UnheldLook {
        guard let answer = try? answerWithoutLock(key, retainUntil: retainUntil) else { return .missed }
        return .answered(answer)
    }

    func readObject(_ key: CacheKey, deadline: ContinuousClock.Instant) async throws(CacheError) -> CachedObject? {
        try readObject(key)
    }

    func readFailure(_ key: CacheKey, deadline: ContinuousClock.Instant) async throws(CacheError) -> CachedFailure? {
        try readFailure(key)
    }

    // The fsynced writes run on the blocking executor, to completion: the caller holds the key's lock until they end.

    func writeSidecar(_ object: CachedObject, deadline: ContinuousClock.Instant) async throws(CacheError) {
        try await BlockingExecutor.shared.complete { () throws(CacheError) in try writeSidecar(object) }
    }

    func writeFailure(_ failure: CachedFailure, deadline: ContinuousClock.Instant) async throws(CacheError) {
        try await BlockingExecutor.shared.complete { () throws(CacheError) in try writeFailure(failure) }
    }

    func removeFailure(_ key: CacheKey, deadline: ContinuousClock.Instant) async throws(CacheError) {
        CacheFileSystem.remove(layout.negativePath(key))
    }

    /// The key's `flock`, polled within `lockWaitTimeout`, looking between polls for what the holder published.
    func hold(
        _ key: CacheKey, deadline: ContinuousClock.Instant, look: () async throws(CacheError) -> CacheOutcome?
    ) async throws(CacheError) -> CacheHoldResult<CacheFileLock> {
        try await CacheFileLock.acquire(
            layout.lockPath(key), key: key, limit: rules.clock.instant + configuration.lockWaitTimeout, clock: rules.clock,
            deadline: deadline, look: look)
    }

    func release(_ hold: CacheFileLock, for key: CacheKey) async {
        hold.release()
    }

    /// Atomic publish, in the order that keeps every crash point safe:
    /// 1. object bytes into `tmp/`, fsync;
    /// 2. the previous sidecar (if any) is unlinked, so no sidecar ever describes bytes it did not hash;
    /// 3. rename the object into place;
    /// 4. sidecar into `tmp/`, fsync, rename into place, fsync the directory.
    /// A crash after 3 leaves an object without a sidecar: readers treat it as absent and `verify` removes it.
    func publish(
        _ object: CachedObject, bytes: Data, replacing previous: CachedObject?, deadline: ContinuousClock.Instant
    ) async throws(CacheError) {
        try await BlockingExecutor.shared.complete { () throws(CacheError) in
            try publishSynchronously(object, bytes: bytes, replacing: previous)
        }
    }

    private func publishSynchronously(_ object: CachedObject, bytes: Data, replacing previous: CachedObject?) throws(CacheError) {
        let key = object.key
        // A sidecar whose object file is missing still names a file a push may use.
        var previous = previous
        if previous == nil { previous = try readSidecar(key) }
        let objectPath = layout.absolutePath(object.relativePath)
        let directory = layout.objectDirectory(key)
        try CacheFileSystem.makeDirectory(directory)

        // A re-render in another format moves the object to a new path. If jobs still reference the old URL, the
        // old file stays, recorded in `retired/` until its retainUntil; GC removes it after that.
        var keepsPreviousFile = false
        if let previous, previous.relativePath != object.relativePath, let until = previous.retainUntil,
            until > object.fetchedAt
        {
            try writeRetired(previous)
            keepsPreviousFile = true
        }
        CacheFileSystem.remove(layout.retiredPath(key, fileExtension: object.fileExtension))

        let temporary = layout.temporaryPath(for: key, kind: "object")
        try CacheFileSystem.writeNewFile(temporary, data: bytes)
        if previous != nil {
            CacheFileSystem.remove(layout.sidecarPath(key))
            CacheFileSystem.syncDirectory(directory)
        }
        do {
            try CacheFileSystem.rename(temporary, to: objectPath)
        } catch {
            CacheFileSystem.remove(temporary)
            throw error
        }
        do {
            try writeSidecar(object)
        } catch {
            // Never an object without its metadata: when the sidecar cannot be written (a full disk), the object
            // goes back out. The key's lock is held, so no reader is being served this file by us.
            CacheFileSystem.remove(objectPath)
            throw error
        }
        if let previous, previous.relativePath != object.relativePath, !keepsPreviousFile {
            CacheFileSystem.remove(layout.absolutePath(previous.relativePath))
        }
    }
}

extension Date {
    /// The date rounded to whole milliseconds, the precision sidecars store, so an object returned to a caller
    /// equals the one read back later.
    var cacheMillisecondPrecision: Date {
        Date(timeIntervalSince1970: (timeIntervalSince1970 * 1000).rounded() / 1000)
    }
}
