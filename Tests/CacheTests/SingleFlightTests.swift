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
        let gate = Gate()
        let outcomes = try await withThrowingTaskGroup(of: CacheOutcome.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    try await store.object(
                        for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil,
                        deadline: farDeadline(),
                        produce: { _ in
                            let call = productions.increment()
                            await gate.wait()
                            return jpegProduction("popular-\(call)")
                        })
                }
            }
            // The production ends only once every caller has joined it.
            try await waitUntil(timeout: .seconds(30), "all callers waiting", interval: .milliseconds(2)) {
                store.callersWaiting == 100
            }
            gate.open()
            var all: [CacheOutcome] = []
            for try await outcome in group { all.append(outcome) }
            return all
        }
        XCTAssertEqual(productions.count(), 1)
        XCTAssertEqual(outcomes.count, 100)
        let digests = Set(outcomes.compactMap { $0.object?.contentSHA256 })
        XCTAssertEqual(digests, [SHA256.hexDigest(of: fakeJPEG("popular-1"))])
        // All callers joined the one in-process flight (not merely queued on the file lock).
        let flights = store.flightsStarted
        XCTAssertEqual(flights, 1)
        XCTAssertEqual(outcomes.filter { $0.kind == "produced" }.count, 100)
    }

    func testWaiterDeadlineIsBoundedWhileTheProductionContinues() async throws {
        let root = try makeTemporaryDirectory()
        let clock = ManualCacheClock()
        let store = try FileMediaStore(configuration: makeConfiguration(root: root, clock: clock))
        let url = "https://origin.test/slow.jpg"
        let cacheKey = key(url)
        let gate = Gate()
        defer { gate.open() }
        let leader = Task {
            try await store.object(
                for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
                produce: { _ in
                    await gate.wait()
                    return jpegProduction("slow")
                })
        }
        try await waitUntil(timeout: .seconds(30), "the production to start", interval: .milliseconds(2)) {
            gate.waiting == 1
        }
        let impatient = Task {
            try await store.object(
                for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil,
                deadline: clock.instant + .milliseconds(150), produce: { _ in jpegProduction("impatient") })
        }
        try await waitUntil(timeout: .seconds(30), "the second caller to join", interval: .milliseconds(2)) {
            store.callersWaiting == 2
        }
        clock.advance(by: .milliseconds(150))
        do {
            _ = try await impatient.value
            XCTFail("expected the short deadline to expire")
        } catch let error as CacheError {
            XCTAssertEqual(error, .deadlineExceeded)
        }
        XCTAssertEqual(gate.waiting, 1, "the waiter gave up while the production still ran")
        gate.open()
        let leaderOutcome = try await leader.value
        XCTAssertEqual(leaderOutcome.kind, "produced")
        XCTAssertEqual(try storedBytes(store, try XCTUnwrap(leaderOutcome.object)), fakeJPEG("slow"))
    }

    func testCrossStoreLockWaitIsBoundedByLockWaitTimeout() async throws {
        let root = try makeTemporaryDirectory()
        let clock = ManualCacheClock()
        let holder = try FileMediaStore(configuration: makeConfiguration(root: root, clock: clock))
        let waiter = try FileMediaStore(
            configuration: makeConfiguration(root: root, lockWaitTimeout: .milliseconds(200), clock: clock))
        let url = "https://origin.test/locked.jpg"
        let cacheKey = key(url)
        let gate = Gate()
        defer { gate.open() }
        let holding = Task {
            try await holder.object(
                for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
                produce: { _ in
                    await gate.wait()
                    return jpegProduction("held")
                })
        }
        try await waitUntil(timeout: .seconds(30), "the holder to produce", interval: .milliseconds(2)) {
            gate.waiting == 1
        }
        let gaveUp = CallCounter()
        let waiting = Task {
            defer { _ = gaveUp.increment() }
            return try await waiter.object(
                for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
                produce: { _ in jpegProduction("other") })
        }
        // The waiter polls the lock; time moves on until its limit passes, while the holder still produces.
        try await waitUntil(timeout: .seconds(30), "the waiter to give up", interval: .milliseconds(2)) {
            clock.advance(by: .milliseconds(20))
            return gaveUp.count() == 1
        }
        do {
            _ = try await waiting.value
            XCTFail("expected a lock timeout")
        } catch let error as CacheError {
            XCTAssertEqual(error.code, "lock_timeout")
        }
        XCTAssertEqual(gate.waiting, 1, "the holder still holds the key")
        gate.open()
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
        let gate = Gate()
        defer { gate.open() }
        let produce: @Sendable (CachedObject?) async throws -> CacheProduction = { _ in
            let call = productions.increment()
            await gate.wait()
            return jpegProduction("recheck-\(call)")
        }
        async let a = first.object(
            for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
            produce: produce)
        async let b = second.object(
            for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
            produce: produce)
        // Both stores are resolving the key (one producing, one waiting for its lock) before the work ends.
        try await waitUntil(timeout: .seconds(30), "both stores to resolve", interval: .milliseconds(2)) {
            gate.waiting == 1 && first.callersWaiting == 1 && second.callersWaiting == 1
        }
        gate.open()
        let (outcomeA, outcomeB) = try await (a, b)
        XCTAssertEqual(productions.count(), 1)
        XCTAssertEqual(Set([outcomeA.kind, outcomeB.kind]), ["produced", "hit"])
        XCTAssertEqual(outcomeA.object?.contentSHA256, outcomeB.object?.contentSHA256)
    }
}
