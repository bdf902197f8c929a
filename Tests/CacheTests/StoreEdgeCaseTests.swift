import Foundation
import XCTest

import RichPush
@testable import RichPushCore
@testable import RichPushCache
@testable import RichPushHTTP
@testable import RichPushPipeline
import TestSupport

final class StoreEdgeCaseTests: XCTestCase {
    func testCancelledCallerReturnsPromptlyWhileOthersGetTheResult() async throws {
        let root = try makeTemporaryDirectory()
        let store = try FileMediaStore(configuration: makeConfiguration(root: root))
        let url = "https://origin.test/cancel.jpg"
        let cacheKey = key(url)
        let gate = Gate()
        defer { gate.open() }
        let produce: @Sendable (CachedObject?) async throws -> CacheProduction = { _ in
            await gate.wait()  // a producer that ignores cancellation
            return jpegProduction("survives")
        }
        let cancelled = Task {
            try await store.object(
                for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
                produce: produce)
        }
        try await waitUntil(timeout: .seconds(30), "the production to start", interval: .milliseconds(2)) {
            gate.waiting == 1
        }
        let patient = Task {
            try await store.object(
                for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
                produce: produce)
        }
        try await waitUntil(timeout: .seconds(30), "the second caller to join", interval: .milliseconds(2)) {
            store.callersWaiting == 2
        }
        cancelled.cancel()
        do {
            _ = try await cancelled.value
            XCTFail("expected cancellation")
        } catch let error as CacheError {
            XCTAssertEqual(error, .cancelled)
        }
        XCTAssertEqual(gate.waiting, 1, "the cancelled caller returned while the production still ran")
        gate.open()
        let outcome = try await patient.value
        XCTAssertEqual(outcome.kind, "produced")
        XCTAssertEqual(try storedBytes(store, try XCTUnwrap(outcome.object)), fakeJPEG("survives"))
    }

    func testEveryConcurrentCallersRetentionIsApplied() async throws {
        let root = try makeTemporaryDirectory()
        let store = try FileMediaStore(configuration: makeConfiguration(root: root))
        let url = "https://origin.test/shared-retention.jpg"
        let cacheKey = key(url)
        let now = Date()
        let expirations = (1...20).map { now.addingTimeInterval(Double($0) * 3_600) }
        let gate = Gate()
        defer { gate.open() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for expiration in expirations.shuffled() {
                group.addTask {
                    let outcome = try await store.object(
                        for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: expiration,
                        deadline: farDeadline(),
                        produce: { _ in
                            await gate.wait()
                            return jpegProduction("shared")
                        })
                    XCTAssertGreaterThanOrEqual(try XCTUnwrap(outcome.object?.retainUntil), expiration)
                }
            }
            // Every caller joins the one production, so all but one get their retention as joiners.
            try await waitUntil(timeout: .seconds(30), "all callers waiting", interval: .milliseconds(2)) {
                store.callersWaiting == 20
            }
            gate.open()
            try await group.waitForAll()
        }
        let stored = try await store.lookup(cacheKey)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(stored?.retainUntil), try XCTUnwrap(expirations.last))
    }

    func testFailedRevalidationKeepsTheStaleObjectAndStopsHammeringTheOrigin() async throws {
        let root = try makeTemporaryDirectory()
        let clock = ManualCacheClock()
        let store = try FileMediaStore(
            configuration: makeConfiguration(root: root, negativeTTL: .seconds(60), clock: clock))
        let url = "https://origin.test/now-broken.jpg"
        let cacheKey = key(url)
        let first = try await store.object(
            for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
            produce: { _ in jpegProduction("was fine", maxAge: .milliseconds(20)) })
        clock.advance(by: .milliseconds(40))
        let calls = CallCounter()
        for expected in ["failed", "failed-cached", "failed-cached"] {
            let outcome = try await store.object(
                for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
                produce: { _ in
                    _ = calls.increment()
                    return .failure(RememberedFailure(code: "http_status", message: "HTTP 410"))
                })
            XCTAssertEqual(outcome.kind, expected)
        }
        XCTAssertEqual(calls.count(), 1)
        let stale = try await store.lookup(cacheKey)
        XCTAssertEqual(stale?.contentSHA256, first.object?.contentSHA256)
    }

    func testUnreadableSidecarIsAbsentForReadersAndQuarantinedByVerify() async throws {
        let root = try makeTemporaryDirectory()
        let store = try FileMediaStore(configuration: makeConfiguration(root: root))
        let url = "https://origin.test/garbled.jpg"
        let cacheKey = key(url)
        let outcome = try await store.object(
            for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
            produce: { _ in jpegProduction("garbled") })
        let object = try XCTUnwrap(outcome.object)
        let sidecar = root.appendingPathComponent(object.relativePath).deletingPathExtension()
            .appendingPathExtension("json")
        try Data("{\"key\": tru".utf8).write(to: sidecar)
        let lookedUp = try await store.lookup(cacheKey)
        XCTAssertNil(lookedUp)
        let report = try await store.verify(repair: true)
        XCTAssertEqual(report.unreadableMetadata.count, 1)
        XCTAssertEqual(report.orphanObjects, [object.relativePath])
        XCTAssertEqual(report.quarantined, 2)
        let again = try await store.object(
            for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
            produce: { _ in jpegProduction("garbled") })
        XCTAssertEqual(again.kind, "produced")
    }

    func testStatisticsReportOldestNewestAndStaleEntries() async throws {
        let root = try makeTemporaryDirectory()
        let clock = ManualCacheClock()
        let store = try FileMediaStore(configuration: makeConfiguration(root: root, clock: clock))
        for (index, maxAge) in [Duration.milliseconds(10), .seconds(600), .seconds(600)].enumerated() {
            let url = "https://origin.test/stats-\(index).jpg"
            _ = try await store.object(
                for: key(url), sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
                produce: { _ in jpegProduction("s\(index)", size: 1_000, maxAge: maxAge) })
            clock.advance(by: .milliseconds(20))
        }
        let statistics = try await store.statistics()
        XCTAssertEqual(statistics.objectCount, 3)
        XCTAssertEqual(statistics.totalBytes, 3_000)
        XCTAssertEqual(statistics.staleObjectCount, 1)
        XCTAssertEqual(statistics.oldestEntry?.sourceURL, "https://origin.test/stats-0.jpg")
        XCTAssertEqual(statistics.newestEntry?.sourceURL, "https://origin.test/stats-2.jpg")
        XCTAssertEqual(statistics.misses, 3)
        XCTAssertEqual(statistics.hits, 0)
    }

    func testHitsAreBatchedPerIntervalAndFlushedExactlyOnce() async throws {
        let root = try makeTemporaryDirectory()
        let store = try FileMediaStore(configuration: makeConfiguration(root: root))  // write interval zero
        let url = "https://origin.test/batched.jpg"
        let cacheKey = key(url)
        try await requestElevenTimes(store, url)
        async let first: Void = store.flushUsage()
        async let second: Void = store.flushUsage()
        _ = try await (first, second)
        let afterFlush = try await store.lookup(cacheKey)
        XCTAssertEqual(afterFlush?.hits, 10)
        let statistics = try await store.statistics()
        XCTAssertEqual(statistics.hits, 10)
        XCTAssertEqual(statistics.misses, 1)
    }

    func testARecentlyRecordedUseIsNotRewritten() async throws {
        let root = try makeTemporaryDirectory()
        var configuration = makeConfiguration(root: root)
        configuration.usageWriteInterval = .seconds(60)
        let store = try FileMediaStore(configuration: configuration)
        let url = "https://origin.test/recent.jpg"
        let cacheKey = key(url)
        try await requestElevenTimes(store, url)
        let beforeFlush = try await store.lookup(cacheKey)
        XCTAssertEqual(beforeFlush?.hits, 0, "no sidecar rewrite per hit")
        let sidecar = root.appendingPathComponent("objects/\(cacheKey.shardPath)/\(cacheKey.hexDigest).json").path
        let written = try FileManager.default.attributesOfItem(atPath: sidecar)[.modificationDate] as? Date
        try await store.flushUsage()
        // The sidecar records a use from under a minute ago (the render): LRU learns nothing from a rewrite.
        let afterFlush = try await store.lookup(cacheKey)
        XCTAssertEqual(afterFlush?.hits, 0)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: sidecar)[.modificationDate] as? Date, written)
        // The shared counters still count every hit.
        let statistics = try await store.statistics()
        XCTAssertEqual(statistics.hits, 10)
        XCTAssertEqual(statistics.misses, 1)
    }

    /// One production, then ten hits.
    private func requestElevenTimes(_ store: FileMediaStore, _ url: String) async throws {
        for _ in 0..<11 {
            _ = try await store.object(
                for: key(url), sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
                produce: { _ in jpegProduction(url) })
        }
    }
}
