import Foundation
import RichPushCore
import Synchronization

/// `cache stats`, `gc` and `verify` on object storage: listings plus a GET per metadata record (and per object for
/// verify), eight at a time.
extension ObjectStorageMediaStore {
    /// Lists and reads every sidecar and negative entry; cost grows with the store. Hit and miss counters are this
    /// process's own (object storage has no shared counters file).
    package func statistics() async throws(CacheError) -> CacheStatistics {
        let deadline = ContinuousClock.now + configuration.maintenanceRequestTimeout * 10
        var statistics = CacheStatistics()
        let now = configuration.clock.date
        for object in try await readAllSidecars(deadline: deadline).objects {
            statistics.count(object, now: now)
        }
        for (_, failure) in try await readAllFailures(deadline: deadline) {
            statistics.count(failure, now: now)
        }
        statistics.count(cache.counters.withLock { $0 })
        return statistics
    }

    /// Evicts least-recently-used objects until the store fits `maximumBytes`, and objects unused for longer than
    /// `maximumAge`; never an object whose `retainUntil` is in the future (reported as `retained`) or whose lease
    /// another host holds (reported as `locked`). The sidecar goes first, so a reader never gets a URL without
    /// bytes. Also deletes expired negative entries and retired objects whose retention passed.
    package func collectGarbage(
        maximumBytes: Int?, maximumAge: Duration?
    ) async throws(CacheError) -> GarbageCollectionReport {
        let deadline = ContinuousClock.now + configuration.maintenanceRequestTimeout * 10
        var report = GarbageCollectionReport()
        let now = configuration.clock.date
        let objects = try await readAllSidecars(deadline: deadline).objects
        try await report.evictLeastRecentlyUsed(
            objects, maximumBytes: maximumBytes, maximumAge: maximumAge, now: now
        ) { object, overBudget throws(CacheError) in
            guard case .held(let token, _) = try await backend.attemptLease(object.key, timeToLive: .seconds(30)) else {
                return .kept(GarbageCollectionReport.KeptObject(object, reason: "locked"))
            }
            return try await backend.releasingLease(object.key, token: token) { () async throws(CacheError) in
                try await evict(object, overBudget: overBudget, deadline: deadline)
            }
        }

        for (path, failure) in try await readAllFailures(deadline: deadline) where failure.expiresAt <= now {
            try await client.delete(path, deadline: deadline)
            report.removedNegativeEntries += 1
        }
        for (path, retired) in try await readAllRetired(deadline: deadline) where (retired.retainUntil ?? .distantPast) <= now {
            try await client.delete(retired.relativePath, deadline: deadline)
            try await client.delete(path, deadline: deadline)
            report.removedRetiredObjects += 1
        }
        return report
    }

    /// Re-reads the sidecar (holding the key's lease, if any) and deletes sidecar then object, unless the object
    /// became retained or was used since the scan.
    private func evict(
        _ object: CachedObject, overBudget: Bool, deadline: ContinuousClock.Instant
    ) async throws(CacheError) -> EvictionDecision {
        guard let current = try await backend.readObject(object.key, deadline: deadline) else { return .skipped }
        if let retainUntil = current.retainUntil, retainUntil > configuration.clock.date {
            return .kept(GarbageCollectionReport.KeptObject(current, reason: "retained"))
        }
        if current.lastUsedAt > object.lastUsedAt && !overBudget { return .skipped }
        forget(object.key)
        try await client.delete(CacheLayout.relativeSidecarPath(object.key), deadline: deadline)
        try await client.delete(current.relativePath, deadline: deadline)
        return .evicted(bytes: current.bytes)
    }

    /// Downloads every object and checks its size and SHA-256 against its sidecar. Also reports sidecars without an
    /// object, objects without a sidecar (older than `orphanMinimumAge`, so a publish in progress is left alone)
    /// and metadata that does not decode. With `repair`, mismatched objects are copied to `quarantine/` and
    /// deleted with their sidecar, and orphans and unreadable metadata are deleted. Keys whose lease is held are
    /// skipped.
    package func verify(repair: Bool) async throws(CacheError) -> VerificationReport {
        let deadline = ContinuousClock.now + configuration.maintenanceRequestTimeout * 10
        var report = VerificationReport()
        report.repaired = repair
        let listing = try await client.list("objects/", deadline: deadline)
        let sidecars = try await readAllSidecars(listing: listing, deadline: deadline)
        let retiredPaths = Set(try await readAllRetired(deadline: deadline).map(\.1.relativePath))

        for path in sidecars.unreadable {
            report.unreadableMetadata.append(path)
            if repair {
                try await client.delete(path, deadline: deadline)
                report.removed += 1
            }
        }
        var described = Set<String>()
        for object in sidecars.objects {
            described.insert(object.relativePath)
            let sidecarPath = CacheLayout.relativeSidecarPath(object.key)
            guard case .held(let token, _) = try await backend.attemptLease(object.key, timeToLive: .seconds(60)) else {
                report.skippedInUse.append(sidecarPath)
                continue
            }
            try await backend.releasingLease(object.key, token: token) { () async throws(CacheError) in
                try await check(object, sidecarPath: sidecarPath, repair: repair, report: &report, deadline: deadline)
            }
        }
        let oldestOrphan = configuration.clock.date.addingTimeInterval(-configuration.orphanMinimumAge.timeInterval)
        for entry in listing where !entry.relativePath.hasSuffix(".json") {
            guard !described.contains(entry.relativePath), !retiredPaths.contains(entry.relativePath),
                (entry.lastModified ?? .distantPast) < oldestOrphan
            else { continue }
            report.orphanObjects.append(entry.relativePath)
            if repair {
                try await client.delete(entry.relativePath, deadline: deadline)
                report.removed += 1
            }
        }
        return report
    }

    private func check(
        _ object: CachedObject, sidecarPath: String, repair: Bool, report: inout VerificationReport,
        deadline: ContinuousClock.Instant
    ) async throws(CacheError) {
        guard let bytes = try await client.get(object.relativePath, deadline: deadline) else {
            report.orphanSidecars.append(sidecarPath)
            if repair {
                forget(object.key)
                try await client.delete(sidecarPath, deadline: deadline)
                report.removed += 1
            }
            return
        }
        report.checkedObjects += 1
        report.checkedBytes += bytes.count
        if bytes.count == object.bytes && SHA256.hexDigest(of: bytes) == object.contentSHA256 {
            report.healthyObjects += 1
            return
        }
        report.mismatchedObjects.append(object.relativePath)
        guard repair else { return }
        forget(object.key)
        let quarantinePath = "quarantine/" + (object.relativePath as NSString).lastPathComponent
        try await client.put(
            quarantinePath, body: bytes, contentType: "application/octet-stream", cacheControl: "no-store",
            deadline: deadline)
        try await client.delete(sidecarPath, deadline: deadline)
        try await client.delete(object.relativePath, deadline: deadline)
        report.quarantined += 1
    }

    // MARK: Scans

    private func readAllSidecars(
        listing: [ObjectStorageClient.ListedObject]? = nil, deadline: ContinuousClock.Instant
    ) async throws(CacheError) -> (objects: [CachedObject], unreadable: [String]) {
        var entries = listing ?? []
        if listing == nil { entries = try await client.list("objects/", deadline: deadline) }
        let paths = entries.map(\.relativePath).filter { $0.hasSuffix(".json") }
        var objects: [CachedObject] = []
        var unreadable: [String] = []
        for (path, data) in try await readAll(paths, deadline: deadline) {
            guard let data else { continue }  // deleted since the listing
            let name = (path as NSString).lastPathComponent
            guard let key = CacheKey(hexDigest: String(name.dropLast(".json".count))),
                let object = ObjectStorageBackend.sidecar(from: data, key: key)
            else {
                unreadable.append(path)
                continue
            }
            objects.append(object)
        }
        return (objects, unreadable)
    }

    private func readAllFailures(deadline: ContinuousClock.Instant) async throws(CacheError) -> [(String, CachedFailure)] {
        let paths = try await client.list("negative/", deadline: deadline).map(\.relativePath).filter { $0.hasSuffix(".json") }
        return try await readAll(paths, deadline: deadline).compactMap { path, data in
            guard let data, let failure = CacheJSON.decode(CachedFailure.self, from: data) else { return nil }
            return (path, failure)
        }
    }

    /// Retired records whose object path is this key's own (GC deletes that path).
    private func readAllRetired(deadline: ContinuousClock.Instant) async throws(CacheError) -> [(String, CachedObject)] {
        let paths = try await client.list("retired/", deadline: deadline).map(\.relativePath).filter { $0.hasSuffix(".json") }
        return try await readAll(paths, deadline: deadline).compactMap { path, data in
            guard let data, let object = CacheJSON.decode(CachedObject.self, from: data),
                object.relativePath == CacheLayout.relativeObjectPath(object.key, fileExtension: object.fileExtension),
                path == CacheLayout.relativeRetiredPath(object.key, fileExtension: object.fileExtension)
            else { return nil }
            return (path, object)
        }
    }

    /// GETs `paths`, eight requests at a time; nil for an object deleted since it was listed.
    private func readAll(
        _ paths: [String], deadline: ContinuousClock.Instant
    ) async throws(CacheError) -> [(String, Data?)] {
        let client = self.client
        var results: [(String, Data?)] = []
        var failure: CacheError?
        await withBoundedConcurrency(over: paths, width: 8) { path -> Result<Data?, CacheError> in
            do throws(CacheError) {
                return .success(try await client.get(path, deadline: deadline))
            } catch {
                return .failure(error)
            }
        } onEach: { path, result in
            switch result {
            case .success(let data): results.append((path, data))
            case .failure(let error): failure = failure ?? error
            }
            return failure == nil
        }
        if let failure { throw failure }
        return results
    }
}
