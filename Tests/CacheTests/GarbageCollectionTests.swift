import Foundation
import XCTest

import RichPush
@testable import RichPushCore
@testable import RichPushCache
@testable import RichPushHTTP
@testable import RichPushPipeline
import TestSupport

final class GarbageCollectionTests: XCTestCase {
    private func request(
        _ store: FileMediaStore, _ name: String, retainUntil: Date? = nil
    ) async throws -> CacheOutcome {
        let url = "https://origin.test/\(name).jpg"
        return try await store.object(
            for: key(url), sourceURL: url, variant: "attachment", retainUntil: retainUntil, deadline: farDeadline(),
            produce: { _ in jpegProduction(name, size: 1000) })
    }

    private func storedObject(
        _ store: FileMediaStore, _ name: String, retainUntil: Date? = nil
    ) async throws -> CachedObject {
        let outcome = try await request(store, name, retainUntil: retainUntil)
        return try XCTUnwrap(outcome.object)
    }

    func testEvictsLeastRecentlyUsedFirstDownToTheBudget() async throws {
        let root = try makeTemporaryDirectory()
        let clock = ManualCacheClock()
        let store = try FileMediaStore(configuration: makeConfiguration(root: root, clock: clock))
        let names = ["a", "b", "c", "d", "e"]
        for name in names { _ = try await request(store, name) }
        for name in ["c", "a", "e", "b", "d"] {
            clock.advance(by: .milliseconds(5))
            let outcome = try await request(store, name)
            XCTAssertEqual(outcome.kind, "hit")
        }
        let report = try await store.collectGarbage(maximumBytes: 2_500, maximumAge: nil)
        XCTAssertEqual(report.scannedObjects, 5)
        XCTAssertEqual(report.scannedBytes, 5_000)
        XCTAssertEqual(report.evictedObjects, 3)
        XCTAssertEqual(report.evictedBytes, 3_000)
        XCTAssertEqual(report.remainingBytes, 2_000)
        XCTAssertTrue(report.budgetMet)
        XCTAssertEqual(report.notEvicted, [])
        var present: [String] = []
        for name in names where try await store.lookup(key("https://origin.test/\(name).jpg")) != nil {
            present.append(name)
        }
        XCTAssertEqual(present, ["b", "d"], "the two most recently used survive")
        let statistics = try await store.statistics()
        XCTAssertEqual(statistics.objectCount, 2)
        XCTAssertEqual(statistics.totalBytes, 2_000)
        let verification = try await store.verify(repair: false)
        XCTAssertEqual(verification.problemCount, 0)
    }

    func testHonoursRetainUntilAndHeldLocksAndReportsWhatItKept() async throws {
        let root = try makeTemporaryDirectory()
        let store = try FileMediaStore(configuration: makeConfiguration(root: root))
        let retainedUntil = Date().addingTimeInterval(30 * 86_400)
        let retained = try await storedObject(store, "retained", retainUntil: retainedUntil)
        let pastRetention = try await storedObject(store, "past", retainUntil: Date().addingTimeInterval(-60))
        let locked = try await storedObject(store, "locked")
        let plain = try await storedObject(store, "plain")

        let lock = try XCTUnwrap(try CacheFileLock.attempt(root.appendingPathComponent("locks/\(locked.key).lock").path))
        let report = try await store.collectGarbage(maximumBytes: 0, maximumAge: nil)
        lock.release()

        XCTAssertEqual(report.evictedObjects, 2)
        XCTAssertFalse(report.budgetMet)
        XCTAssertEqual(report.remainingBytes, 2_000)
        let kept = Dictionary(uniqueKeysWithValues: report.notEvicted.map { ($0.key, $0) })
        XCTAssertEqual(kept.count, 2)
        XCTAssertEqual(kept[retained.key]?.reason, "retained")
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(kept[retained.key]?.retainUntil), retainedUntil)
        XCTAssertEqual(kept[retained.key]?.relativePath, retained.relativePath)
        XCTAssertEqual(kept[locked.key]?.reason, "locked")
        let retainedNow = try await store.lookup(retained.key)
        let lockedNow = try await store.lookup(locked.key)
        let pastNow = try await store.lookup(pastRetention.key)
        let plainNow = try await store.lookup(plain.key)
        XCTAssertNotNil(retainedNow)
        XCTAssertNotNil(lockedNow)
        XCTAssertNil(pastNow)
        XCTAssertNil(plainNow)
        XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent(retained.relativePath).path))

        // Once the lock is free, the next pass evicts it; the retained object still stays.
        let second = try await store.collectGarbage(maximumBytes: 0, maximumAge: nil)
        XCTAssertEqual(second.evictedObjects, 1)
        XCTAssertEqual(second.notEvicted.map(\.key), [retained.key])
    }

    func testMaximumAgeEvictsObjectsUnusedForTooLong() async throws {
        let root = try makeTemporaryDirectory()
        let clock = ManualCacheClock()
        let store = try FileMediaStore(configuration: makeConfiguration(root: root, clock: clock))
        let old = try await storedObject(store, "old")
        clock.advance(by: .milliseconds(700))
        let recent = try await storedObject(store, "recent")
        let report = try await store.collectGarbage(maximumBytes: nil, maximumAge: .milliseconds(500))
        XCTAssertEqual(report.evictedObjects, 1)
        let oldNow = try await store.lookup(old.key)
        let recentNow = try await store.lookup(recent.key)
        XCTAssertNil(oldNow)
        XCTAssertNotNil(recentNow)
    }

    func testRemovesExpiredNegativeEntriesAndStaleTemporaryFiles() async throws {
        let root = try makeTemporaryDirectory()
        let clock = ManualCacheClock()
        let store = try FileMediaStore(
            configuration: makeConfiguration(root: root, negativeTTL: .seconds(1), clock: clock))
        for name in ["gone1", "gone2"] {
            let url = "https://origin.test/\(name)"
            _ = try await store.object(
                for: key(url), sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
                produce: { _ in .failure(RememberedFailure(code: "http_status", message: "404")) })
        }
        let staleTemporary = root.appendingPathComponent("tmp/counters.1.2.part")
        let freshTemporary = root.appendingPathComponent("tmp/counters.3.4.part")
        try Data("x".utf8).write(to: staleTemporary)
        try Data("y".utf8).write(to: freshTemporary)
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-7200)], ofItemAtPath: staleTemporary.path)
        let early = try await store.collectGarbage(maximumBytes: nil, maximumAge: nil)
        XCTAssertEqual(early.removedNegativeEntries, 0, "live negative entries stay")
        XCTAssertEqual(early.removedTemporaryFiles, 1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: freshTemporary.path))
        clock.advance(by: .milliseconds(1_050))
        let later = try await store.collectGarbage(maximumBytes: nil, maximumAge: nil)
        XCTAssertEqual(later.removedNegativeEntries, 2)
        let statistics = try await store.statistics()
        XCTAssertEqual(statistics.negativeEntryCount + statistics.expiredNegativeEntryCount, 0)
    }

    func testConcurrentReadersKeepSucceedingWhileGCRuns() async throws {
        let root = try makeTemporaryDirectory()
        let store = try FileMediaStore(configuration: makeConfiguration(root: root))
        let names = (0..<40).map { "item\($0)" }
        for name in names { _ = try await request(store, name) }
        // Readers use their own store instances, as other worker processes would.
        let readerStores = try (0..<4).map { _ in try FileMediaStore(configuration: makeConfiguration(root: root)) }
        let stop = CallCounter()
        let reads = CallCounter()
        let readers = Task {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for (index, reader) in readerStores.enumerated() {
                    group.addTask {
                        var served = 0
                        var position = index
                        while stop.count() == 0 {
                            let name = names[position % names.count]
                            let url = "https://origin.test/\(name).jpg"
                            let outcome = try await reader.object(
                                for: key(url), sourceURL: url, variant: "attachment", retainUntil: nil,
                                deadline: farDeadline(), produce: { _ in jpegProduction(name, size: 1000) })
                            guard let object = outcome.object else { throw CacheError.producerThrew(reason: "no object") }
                            XCTAssertEqual(object.contentSHA256, SHA256.hexDigest(of: fakeJPEG(names[position % names.count], size: 1000)))
                            served += 1
                            _ = reads.increment()
                            position += 7
                        }
                        return served
                    }
                }
                var total = 0
                for try await served in group { total += served }
                return total
            }
        }
        var evicted = 0
        for _ in 0..<5 {
            let report = try await store.collectGarbage(maximumBytes: 10_000, maximumAge: nil)
            evicted += report.evictedObjects
            // Readers make progress between passes, so GC and reads really interleave.
            let before = reads.count()
            try await waitUntil(timeout: .seconds(30), "readers to read", interval: .milliseconds(1)) {
                reads.count() >= before + 4
            }
        }
        _ = stop.increment()
        let served = try await readers.value
        XCTAssertGreaterThan(served, 0)
        XCTAssertGreaterThanOrEqual(evicted, 30)
        let verification = try await store.verify(repair: false)
        XCTAssertEqual(verification.mismatchedObjects, [])
        XCTAssertEqual(verification.orphanSidecars, [])
    }
}

final class FormatChangeRetentionTests: XCTestCase {
    func testOldFileOfARetainedObjectOutlivesARerenderInAnotherFormat() async throws {
        let root = try makeTemporaryDirectory()
        let clock = ManualCacheClock()
        var configuration = makeConfiguration(root: root, clock: clock)
        configuration.retentionGranularity = .zero
        let store = try FileMediaStore(configuration: configuration)
        let url = "https://origin.test/changes-format"
        let cacheKey = key(url)
        let jpegOutcome = try await store.object(
            for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: clock.date.addingTimeInterval(1.5),
            deadline: farDeadline(), produce: { _ in jpegProduction("opaque", maxAge: .milliseconds(50)) })
        let jpeg = try XCTUnwrap(jpegOutcome.object)
        clock.advance(by: .milliseconds(100))
        let pngOutcome = try await store.object(
            for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
            produce: { _ in
                .object(bytes: fakePNG("now with alpha"), format: .png, width: 100, height: 80,
                    etag: nil, lastModified: nil, maxAge: nil)
            })
        let png = try XCTUnwrap(pngOutcome.object)
        XCTAssertEqual(pngOutcome.kind, "produced")
        XCTAssertTrue(png.relativePath.hasSuffix(".png"))
        XCTAssertEqual(try storedBytes(store, jpeg), fakeJPEG("opaque"), "the URL a pending push holds still works")
        let verification = try await store.verify(repair: true)
        XCTAssertEqual(verification.problemCount, 0, "a retired file is not an orphan")
        let early = try await store.collectGarbage(maximumBytes: nil, maximumAge: nil)
        XCTAssertEqual(early.removedRetiredObjects, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent(jpeg.relativePath).path))

        clock.advance(by: .milliseconds(1_500))
        let later = try await store.collectGarbage(maximumBytes: nil, maximumAge: nil)
        XCTAssertEqual(later.removedRetiredObjects, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent(jpeg.relativePath).path))
        XCTAssertEqual(try storedBytes(store, png), fakePNG("now with alpha"))
    }

    func testOldFileWithoutRetentionIsRemovedOnFormatChange() async throws {
        let root = try makeTemporaryDirectory()
        let clock = ManualCacheClock()
        let store = try FileMediaStore(configuration: makeConfiguration(root: root, clock: clock))
        let url = "https://origin.test/changes-format-unretained"
        let cacheKey = key(url)
        let jpegOutcome = try await store.object(
            for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
            produce: { _ in jpegProduction("opaque", maxAge: .milliseconds(10)) })
        let jpeg = try XCTUnwrap(jpegOutcome.object)
        clock.advance(by: .milliseconds(30))
        _ = try await store.object(
            for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
            produce: { _ in
                .object(bytes: fakePNG("alpha"), format: .png, width: 1, height: 1, etag: nil,
                    lastModified: nil, maxAge: nil)
            })
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent(jpeg.relativePath).path))
        let verification = try await store.verify(repair: false)
        XCTAssertEqual(verification.problemCount, 0)
    }
}

final class HostileMetadataTests: XCTestCase {
    func testRecordsPointingOutsideTheirOwnPathAreNeverFollowed() async throws {
        let root = try makeTemporaryDirectory()
        let store = try FileMediaStore(configuration: makeConfiguration(root: root))
        let victim = root.appendingPathComponent("victim.txt")
        try Data("keep me".utf8).write(to: victim)
        let cacheKey = key("https://origin.test/hostile")
        let digest = cacheKey.hexDigest
        let shard = "\(digest.prefix(2))/\(digest.dropFirst(2).prefix(2))"
        let hostile = CachedObject(
            key: cacheKey, sourceURL: "https://origin.test/hostile", variant: "attachment", width: 1, height: 1,
            bytes: 7, format: .jpeg, fileExtension: "jpg", contentSHA256: SHA256.hexDigest(of: "keep me"),
            etag: nil, lastModified: nil, fetchedAt: Date(), expiresAt: Date().addingTimeInterval(3600),
            lastUsedAt: Date.distantPast, hits: 0, retainUntil: nil, relativePath: "victim.txt")
        let encoded = try CacheJSON.encoder().encode(hostile)
        for directory in ["objects/\(shard)", "retired/\(shard)"] {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent(directory), withIntermediateDirectories: true)
        }
        try encoded.write(to: root.appendingPathComponent("objects/\(shard)/\(digest).json"))
        try encoded.write(to: root.appendingPathComponent("retired/\(shard)/\(digest).jpg.json"))

        let lookedUp = try await store.lookup(cacheKey)
        XCTAssertNil(lookedUp, "a sidecar naming another path is not an object")
        _ = try await store.collectGarbage(maximumBytes: 0, maximumAge: .zero)
        _ = try await store.verify(repair: true)
        XCTAssertEqual(try String(contentsOf: victim, encoding: .utf8), "keep me")
    }
}
