import Foundation
import RichPush
import TestSupport
import XCTest

/// Deadlines, stalls, byte caps, concurrency and cancellation.
final class FetcherLimitsTests: XCTestCase {
    /// libcurl and the poll loop both watch the deadline; the fetch must end at it, not run on to the end of the body
    /// (minutes away). A second of slack: the test asserts that, not how quickly a shared machine schedules the loop.
    private let tolerance = Duration.seconds(1)

    func testDripFeedingOriginEndsAtTheDeadline() async throws {
        let origin = try origin(), fetcher = try makeFetcher()
        let budget = Duration.milliseconds(600)
        let (error, elapsed) = await expectFailure(fetcher, origin.url("/drip/20/10000"), budget: budget)
        XCTAssertEqual(error, .deadlineExceeded(url: origin.url("/drip/20/10000")))
        XCTAssertGreaterThanOrEqual(elapsed, budget - .milliseconds(5))
        XCTAssertLessThanOrEqual(elapsed, budget + tolerance)
    }

    func testStallAfterHeadersIsDetected() async throws {
        let origin = try origin(), fetcher = try makeFetcher { $0.stallTimeout = .milliseconds(300) }
        let (error, elapsed) = await expectFailure(fetcher, origin.url("/stall"), budget: .seconds(5))
        XCTAssertEqual(error, .stalled(url: origin.url("/stall")))
        XCTAssertGreaterThanOrEqual(elapsed, .milliseconds(290))
        XCTAssertLessThan(elapsed, .seconds(1))
    }

    func testStallLongerThanTheBudgetEndsAtTheDeadline() async throws {
        let origin = try origin(), fetcher = try makeFetcher()
        let budget = Duration.milliseconds(400)
        let (error, elapsed) = await expectFailure(fetcher, origin.url("/stall"), budget: budget)
        XCTAssertEqual(error?.code, "deadline_exceeded")
        XCTAssertLessThanOrEqual(elapsed, budget + tolerance)
    }

    func testExpiredDeadlineFailsWithoutARequest() async throws {
        let origin = try origin(), fetcher = try makeFetcher()
        let (error, _) = await expectFailure(fetcher, origin.url("/bytes/10/10"), budget: .zero)
        XCTAssertEqual(error?.code, "deadline_exceeded")
        XCTAssertEqual(origin.count("/bytes/10/10"), 0)
    }

    func testTruncatedBodyIsAConnectionError() async throws {
        let origin = try origin(), fetcher = try makeFetcher()
        let (error, elapsed) = await expectFailure(fetcher, origin.url("/truncated"))
        XCTAssertEqual(error?.code, "connection")
        XCTAssertTrue(error?.description.contains("truncated") == true, error?.description ?? "")
        XCTAssertLessThan(elapsed, .seconds(2))
    }

    func testEndlessChunkedBodyIsCutAtTheCap() async throws {
        let origin = try origin(), fetcher = try makeFetcher { $0.maximumBytes = 1_000_000 }
        let (error, elapsed) = await expectFailure(fetcher, origin.url("/endless-chunked"))
        XCTAssertEqual(error, .tooLarge(url: origin.url("/endless-chunked"), limit: 1_000_000))
        XCTAssertLessThan(elapsed, .seconds(3))
    }

    func testEndlessBodyWithoutLengthIsCutAtTheCap() async throws {
        let origin = try origin(), fetcher = try makeFetcher { $0.maximumBytes = 1_000_000 }
        let (error, elapsed) = await expectFailure(fetcher, origin.url("/endless-close"))
        XCTAssertEqual(error?.code, "too_large")
        XCTAssertLessThan(elapsed, .seconds(3))
    }

    func testAnnouncedLengthOverTheCapIsRejectedUpFront() async throws {
        let origin = try origin()
        for acceptEncoding in [false, true] {
            let fetcher = try makeFetcher { $0.maximumBytes = 1_000_000; $0.acceptEncoding = acceptEncoding }
            let (error, elapsed) = await expectFailure(fetcher, origin.url("/huge-length"))
            XCTAssertEqual(error, .tooLarge(url: origin.url("/huge-length"), limit: 1_000_000))
            XCTAssertLessThan(elapsed, .seconds(1), "must not wait for the body")
        }
    }

    func testFiveHundredConcurrentFetchesReturnCorrectBytes() async throws {
        let origin = try origin(), fetcher = try makeFetcher()
        let deadline = ContinuousClock.now + .seconds(30)
        let results = try await withThrowingTaskGroup(of: (Int, Data).self) { group in
            for index in 0..<500 {
                group.addTask {
                    let size = (index * 997) % 60_000 + 1
                    let media = try await fetcher.fetch(FetchRequest(url: origin.url("/bytes/\(index)/\(size)"), deadline: deadline))
                    return (index, media.body)
                }
            }
            var collected: [Int: Data] = [:]
            for try await (index, body) in group { collected[index] = body }
            return collected
        }
        XCTAssertEqual(results.count, 500)
        for (index, body) in results {
            let expected = LoopbackOrigin.body(seed: index, size: (index * 997) % 60_000 + 1)
            XCTAssertEqual(checksum(body), checksum(expected), "fetch \(index)")
            XCTAssertEqual(body.count, expected.count)
        }
    }

    func testCancellationAbortsPromptly() async throws {
        let origin = try origin(), fetcher = try makeFetcher { $0.stallTimeout = .seconds(30) }
        let path = "/stall/cancel-\(UUID().uuidString)"
        let task = Task {
            try await fetcher.fetch(FetchRequest(url: origin.url(path), deadline: .now + .seconds(30)))
        }
        try await waitUntil(timeout: .seconds(10), "the request to stall at the origin", interval: .milliseconds(5)) {
            origin.count(path) > 0
        }
        let cancelledAt = ContinuousClock.now
        task.cancel()
        let result = await task.result
        // The stall runs 30 s: a second is "promptly" on a shared machine.
        XCTAssertLessThan(ContinuousClock.now - cancelledAt, .seconds(1))
        XCTAssertThrowsError(try result.get()) { error in
            XCTAssertEqual((error as? FetchError)?.code, "cancelled")
        }
    }

    func testCancellingManyRunningAndQueuedFetches() async throws {
        let origin = try origin(), fetcher = try makeFetcher { $0.stallTimeout = .seconds(30) }
        let path = "/stall/cancel-many-\(UUID().uuidString)"
        let url = origin.url(path)
        let task = Task {
            await withTaskGroup(of: String?.self) { group in
                for _ in 0..<100 {
                    group.addTask {
                        do {
                            _ = try await fetcher.fetch(FetchRequest(url: url, deadline: .now + .seconds(30)))
                            return nil
                        } catch {
                            return (error as? FetchError)?.code.rawValue ?? "other"
                        }
                    }
                }
                var codes: [String?] = []
                for await code in group { codes.append(code) }
                return codes
            }
        }
        // Every connection to the host stalls; the rest of the 100 are queued behind them.
        try await waitUntil(timeout: .seconds(10), "the host's connections to stall", interval: .milliseconds(5)) {
            origin.count(path) >= fetcher.configuration.maximumConnectionsPerHost
        }
        let cancelledAt = ContinuousClock.now
        task.cancel()
        let codes = await task.value
        XCTAssertLessThan(ContinuousClock.now - cancelledAt, .seconds(2))
        XCTAssertEqual(codes.count, 100)
        XCTAssertTrue(codes.allSatisfy { $0 == "cancelled" }, "\(Set(codes.map { $0 ?? "success" }))")
    }

    func testShutdownFailsInFlightAndLaterFetches() async throws {
        let origin = try origin(), fetcher = try makeFetcher { $0.stallTimeout = .seconds(30) }
        let path = "/stall/shutdown-\(UUID().uuidString)"
        let task = Task { try await fetcher.fetch(FetchRequest(url: origin.url(path), deadline: .now + .seconds(30))) }
        try await waitUntil(timeout: .seconds(10), "the request to stall at the origin", interval: .milliseconds(5)) {
            origin.count(path) > 0
        }
        fetcher.shutdown()
        fetcher.shutdown()
        let result = await task.result
        XCTAssertThrowsError(try result.get())
        let (error, _) = await expectFailure(fetcher, origin.url("/bytes/11/11"))
        XCTAssertEqual(error?.code, "cancelled")
    }

    func testConnectionsAreReused() async throws {
        let origin = try origin(), fetcher = try makeFetcher()
        let before = origin.connectionCount()
        for index in 0..<10 {
            let media = try await fetch(fetcher, origin.url("/bytes/\(100 + index)/5000"))
            XCTAssertEqual(media.body.count, 5000)
        }
        XCTAssertEqual(origin.connectionCount() - before, 1, "ten sequential fetches share one keep-alive connection")
    }

    func testPerHostConnectionCapQueuesTransfers() async throws {
        let origin = try origin()
        let fetcher = try makeFetcher { $0.maximumConnectionsPerHost = 3; $0.connectTimeout = .milliseconds(300) }
        _ = origin.takeSlowPeak()
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<15 {
                group.addTask {
                    try await fetcher.fetch(FetchRequest(url: origin.url("/slow/100/\(index)"), deadline: .now + .seconds(10))).body.count
                }
            }
            for try await count in group { XCTAssertEqual(count, 100) }
        }
        let peak = origin.takeSlowPeak()
        XCTAssertLessThanOrEqual(peak, 3)
        XCTAssertGreaterThanOrEqual(peak, 2)
        // 15 requests of 100 ms through 3 connections take at least 5 rounds; queueing beyond the connect
        // timeout (300 ms) must not fail them.
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - started, .milliseconds(480))
    }

    private func checksum(_ data: Data) -> UInt64 {
        data.reduce(into: UInt64(14_695_981_039_346_656_037)) { hash, byte in
            hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211
        }
    }
}
