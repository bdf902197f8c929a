import Foundation
import XCTest

import RichPush
@testable import RichPushCore
@testable import RichPushCache
@testable import RichPushHTTP
@testable import RichPushPipeline
import TestSupport

final class SingleFlightTests: XCTestCase {
    func testHundredConcurrentCallersShareOneProduction() async throws {
        let root = try makeTemporaryDirectory()
        let store = try FileMediaStore(configuration: makeConfiguration(root: root))
        let url = "https://origin.test/popular.jpg"
        let cacheKey = key(url)
        let productions = CallCounter()
        let outcomes = try await withThrowingTaskGroup(of: CacheOutcome.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    try await store.object(
                        for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil,
                        deadline: farDeadline(),
                        produce: { _ in
                            let call = productions.increment()
                            try await Task.sleep(for: .milliseconds(500))
                            return jpegProduction("popular-\(call)")
                        })
                }
            }
            var all: [CacheOutcome] = []
            for try await outcome in group { all.append(outcome) }
            return all
        }
        XCTAssertEqual(productions.count(), 1)
        XCTAssertEqual(outcomes.count, 100)
        let digests = Set(outcomes.compactMap { $0.object?.contentSHA256 })
        XCTAssertEqual(digests, [SHA256.hexDigest(of: fakeJPEG("popular-1"))])
        // All callers joined the one in-process flight (not merely queued on the file lock).
        let flights = await store.flightsStarted
        XCTAssertEqual(flights, 1)
        XCTAssertEqual(outcomes.filter { $0.kind == "produced" }.count, 100)
    }

    func testWaiterDeadlineIsBoundedWhileTheProductionContinues() async throws {
        let root = try makeTemporaryDirectory()
        let store = try FileMediaStore(configuration: makeConfiguration(root: root))
        let url = "https://origin.test/slow.jpg"
        let cacheKey = key(url)
        let leader = Task {
            try await store.object(
                for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
                produce: { _ in
                    try await Task.sleep(for: .milliseconds(600))
                    return jpegProduction("slow")
                })
        }
        try await Task.sleep(for: .milliseconds(50))
        let start = ContinuousClock.now
        do {
            _ = try await store.object(
                for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil,
                deadline: .now + .milliseconds(150), produce: { _ in jpegProduction("impatient") })
            XCTFail("expected the short deadline to expire")
        } catch {
            XCTAssertEqual(error, .deadlineExceeded)
        }
        XCTAssertLessThan(ContinuousClock.now - start, .milliseconds(450))
        let leaderOutcome = try await leader.value
        XCTAssertEqual(leaderOutcome.kind, "produced")
        XCTAssertEqual(try storedBytes(store, try XCTUnwrap(leaderOutcome.object)), fakeJPEG("slow"))
    }

    func testCrossStoreLockWaitIsBoundedByLockWaitTimeout() async throws {
        let root = try makeTemporaryDirectory()
        let holder = try FileMediaStore(configuration: makeConfiguration(root: root))
        let waiter = try FileMediaStore(
            configuration: makeConfiguration(root: root, lockWaitTimeout: .milliseconds(200)))
        let url = "https://origin.test/locked.jpg"
        let cacheKey = key(url)
        let started = CallCounter()
        let holding = Task {
            try await holder.object(
                for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
                produce: { _ in
                    _ = started.increment()
                    try await Task.sleep(for: .milliseconds(800))
                    return jpegProduction("held")
                })
        }
        while started.count() == 0 { try await Task.sleep(for: .milliseconds(5)) }
        do {
            _ = try await waiter.object(
                for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
                produce: { _ in jpegProduction("other") })
            XCTFail("expected a lock timeout")
        } catch {
            XCTAssertEqual(error.code, "lock_timeout")
        }
        _ = try await holding.value
        // Once published, the other store reads it without producing.
        let after = try await waiter.object(
            for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
            produce: { _ in XCTFail("must not produce"); return jpegProduction("other") })
        XCTAssertEqual(after.kind, "hit")
        XCTAssertEqual(try storedBytes(waiter, try XCTUnwrap(after.object)), fakeJPEG("held"))
    }

    func testSecondStoreWaitsForTheLockThenRechecksInsteadOfProducing() async throws {
        let root = try makeTemporaryDirectory()
        let first = try FileMediaStore(configuration: makeConfiguration(root: root))
        let second = try FileMediaStore(configuration: makeConfiguration(root: root))
        let url = "https://origin.test/recheck.jpg"
        let cacheKey = key(url)
        let productions = CallCounter()
        let produce: @Sendable (CachedObject?) async throws -> CacheProduction = { _ in
            let call = productions.increment()
            try await Task.sleep(for: .milliseconds(200))
            return jpegProduction("recheck-\(call)")
        }
        async let a = first.object(
            for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
            produce: produce)
        async let b = second.object(
            for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
            produce: produce)
        let (outcomeA, outcomeB) = try await (a, b)
        XCTAssertEqual(productions.count(), 1)
        XCTAssertEqual(Set([outcomeA.kind, outcomeB.kind]), ["produced", "hit"])
        XCTAssertEqual(outcomeA.object?.contentSHA256, outcomeB.object?.contentSHA256)
    }
}
