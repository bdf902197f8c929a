import Foundation
import Synchronization
import TestSupport
import XCTest
@testable import RichPushCore

/// The consumer's hand-overs: reader to launcher (one entry at a time, refilled at a low-water mark) and job tasks
/// to writer (everything queued at once).
final class AsyncQueueTests: XCTestCase {
    func testNextTakesInOrderAndEndsAfterFinishOnceDrained() async {
        let queue = AsyncQueue<Int>()
        queue.append(contentsOf: [1, 2])
        queue.append(3)
        queue.finish()
        var taken: [Int] = []
        while let element = await queue.next() { taken.append(element) }
        XCTAssertEqual(taken, [1, 2, 3])
        let afterEnd = await queue.next()
        XCTAssertNil(afterEnd)
    }

    func testNextBatchTakesEverythingQueuedAndWaitsForTheFirst() async throws {
        let queue = AsyncQueue<Int>()
        queue.append(contentsOf: [1, 2, 3])
        let first = await queue.nextBatch()
        XCTAssertEqual(first, [1, 2, 3])
        let waiting = Task { await queue.nextBatch() }
        try await waitUntil(timeout: .seconds(10), "the consumer to wait", interval: .milliseconds(1)) { queue.isConsumerWaiting }
        queue.append(4)
        let second = await waiting.value
        XCTAssertEqual(second, [4])
        XCTAssertEqual(queue.takeAvailable(), [])
        queue.finish()
        let end = await queue.nextBatch()
        XCTAssertNil(end)
    }

    func testAProducerWaitsUntilTheQueueDrainsToItsMark() async throws {
        let queue = AsyncQueue<Int>()
        queue.append(contentsOf: 1...6)
        let atOnce = await queue.waitUntilCount(atMost: 6)
        XCTAssertEqual(atOnce, 6, "at the mark already: no wait")
        let producer = Task { await queue.waitUntilCount(atMost: 3) }
        try await waitUntil(timeout: .seconds(10), "the producer to wait", interval: .milliseconds(1)) { queue.isProducerWaiting }
        for _ in 0..<2 { _ = await queue.next() }
        // A take wakes the producer inside the take itself, so a wrong wake would already show here.
        XCTAssertTrue(queue.isProducerWaiting, "two taken, the producer still waits")
        XCTAssertEqual(queue.count, 4, "two taken, the producer still waits")
        _ = await queue.next()
        let count = await producer.value
        XCTAssertEqual(count, 3, "woken by the take that reached the mark, with the count then")
    }

    func testEveryElementOfManyProducersIsTakenExactlyOnce() async {
        let queue = AsyncQueue<Int>()
        let consumer = Task { () -> [Int] in
            var taken: [Int] = []
            while let batch = await queue.nextBatch() { taken += batch }
            return taken
        }
        await withTaskGroup(of: Void.self) { group in
            for producer in 0..<8 {
                group.addTask {
                    for index in 0..<500 { queue.append(producer * 1000 + index) }
                }
            }
        }
        queue.finish()
        let taken = await consumer.value
        XCTAssertEqual(taken.count, 4000)
        XCTAssertEqual(Set(taken).count, 4000)
        for producer in 0..<8 {
            let own = taken.filter { $0 / 1000 == producer }
            XCTAssertEqual(own, own.sorted(), "one producer's elements keep their order")
        }
    }
}

/// The semaphore under the render memory budget and the consumer's job slots.
final class AsyncSemaphoreTests: XCTestCase {
    func testWaitersAreServedInArrivalOrderWithoutOvertaking() async throws {
        let semaphore = AsyncSemaphore(capacity: 10)
        let held = try await semaphore.acquire(8)
        let order = Order()
        let large = Task {
            _ = try await semaphore.acquire(10)
            await order.append("large")
            semaphore.release(10)
        }
        try await waitUntil(timeout: .seconds(10), "the large one to wait", interval: .milliseconds(1)) { semaphore.waitingCount == 1 }
        let small = Task {
            _ = try await semaphore.acquire(1)
            await order.append("small")
            semaphore.release(1)
        }
        try await waitUntil(timeout: .seconds(10), "the small one to wait or be served", interval: .milliseconds(1)) {
            let served = await order.names.contains("small")
            return served || semaphore.waitingCount == 2
        }
        XCTAssertEqual(semaphore.waitingCount, 2, "the small one fits but must not overtake the large one")
        semaphore.release(held)
        _ = try await large.value
        _ = try await small.value
        let served = await order.names
        XCTAssertEqual(served, ["large", "small"])
        XCTAssertEqual(semaphore.heldUnits, 0)
    }

    func testAWaiterPastItsDeadlineOrCancelledLeavesNothingHeld() async throws {
        let semaphore = AsyncSemaphore(capacity: 1)
        _ = try await semaphore.acquire(1)
        do {
            _ = try await semaphore.acquire(1, deadline: .now + .milliseconds(30))
            XCTFail("the deadline must end the wait")
        } catch {
            XCTAssertEqual(error, .deadlineExceeded)
        }
        let cancelled = Task { () -> AsyncSemaphore.Failure? in
            do throws(AsyncSemaphore.Failure) {
                _ = try await semaphore.acquire(1)
                return nil
            } catch {
                return error
            }
        }
        try await waitUntil(timeout: .seconds(10), "the waiter to queue", interval: .milliseconds(1)) { semaphore.waitingCount == 1 }
        cancelled.cancel()
        let failure = await cancelled.value
        XCTAssertEqual(failure, .cancelled)
        XCTAssertEqual(semaphore.waitingCount, 0)
        semaphore.release(1)
        XCTAssertEqual(semaphore.heldUnits, 0)
        let again = try await semaphore.acquire(5)
        XCTAssertEqual(again, 1, "a request above the capacity takes the whole semaphore")
    }
}

private actor Order {
    private(set) var names: [String] = []

    func append(_ name: String) { names.append(name) }
}
