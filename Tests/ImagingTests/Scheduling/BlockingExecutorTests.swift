import Foundation
import Synchronization
import XCTest
import RichPush
@testable import RichPushCore
import TestSupport
@testable import RichPushImaging

/// Blocking work runs on the executor's threads; a cancelled render is answered at once even while its work is queued,
/// and work that must complete (a cache publish) is waited for, cancelled or not.
final class BlockingExecutorTests: XCTestCase {
    func testCompleteRunsOnAnExecutorThreadAndOutlivesCancellation() async throws {
        let executor = BlockingExecutor(threadCount: 1)
        let started = Atomic<Bool>(false)
        let finished = Atomic<Bool>(false)
        let task = Task { () -> Bool in
            await executor.complete { () -> Bool in
                started.store(true, ordering: .relaxed)
                // The work the caller must wait for, cancelled or not: long enough that a return at the
                // cancellation, before the work's end, would show.
                usleep(100_000)
                finished.store(true, ordering: .relaxed)
                return executor.isCurrentThreadInPool
            }
        }
        try await waitUntil(timeout: .seconds(10), "the work to start", interval: .milliseconds(1)) { started.load(ordering: .relaxed) }
        task.cancel()
        let ranInPool = await task.value
        XCTAssertTrue(finished.load(ordering: .relaxed), "complete returned before its work ended")
        XCTAssertTrue(ranInPool, "the work ran on a thread of the pool")
        XCTAssertFalse(executor.isCurrentThreadInPool, "the test's own thread is not one of them")
    }

    /// A publish holds its key's lock while it waits for a thread: it goes before renders queued ahead of it.
    func testCompleteGoesBeforeQueuedRuns() async throws {
        let executor = BlockingExecutor(threadCount: 1)
        let gate = DispatchSemaphore(value: 0)
        let order = OrderRecorder()
        let blocking = Atomic<Bool>(false)
        let blocker = Task {
            try await executor.run(cancelledError: ImageError.cancelled) { _ throws(ImageError) in
                blocking.store(true, ordering: .relaxed)
                gate.wait()
            }
        }
        try await waitUntil(timeout: .seconds(10), "the blocker to hold the thread", interval: .milliseconds(1)) {
            blocking.load(ordering: .relaxed)
        }
        let queuedRun = Task {
            try await executor.run(cancelledError: ImageError.cancelled) { _ throws(ImageError) in order.append("run") }
        }
        try await waitUntil(timeout: .seconds(10), "the run to queue", interval: .milliseconds(1)) { executor.pendingCounts.normal == 1 }
        let publish = Task { await executor.complete { () -> Void in order.append("complete") } }
        try await waitUntil(timeout: .seconds(10), "the publish to queue", interval: .milliseconds(1)) { executor.pendingCounts.urgent == 1 }
        gate.signal()
        try await blocker.value
        try await queuedRun.value
        await publish.value
        XCTAssertEqual(order.names, ["complete", "run"])
    }

    func testCompleteRethrowsTheTypedError() async {
        do {
            try await BlockingExecutor.shared.complete { () throws(ImageError) in throw ImageError.corrupt(reason: "test") }
            XCTFail("the error must come back")
        } catch {
            XCTAssertEqual(error, .corrupt(reason: "test"))
        }
    }

    func testCancelledRenderReturnsPromptlyWhileQueuedBehindOthers() async throws {
        let bytes = try ImagingHelpers.data("media/hero.jpg")
        let pipeline = ImagePipeline()
        let deadline = ContinuousClock.now + .seconds(60)
        let variant = ImageVariant(name: "big", width: 1600, height: 1600, fit: .contain)
        // Fill every render thread, and then some, with real work.
        let busyFinished = OrderRecorder()
        let busy = (0..<(4 * ProcessInfo.processInfo.activeProcessorCount)).map { _ in
            Task {
                let rendered = try await pipeline.render(bytes, as: variant, deadline: deadline)
                busyFinished.append("busy")
                return rendered
            }
        }
        let asked = Atomic<Bool>(false)
        let queued = Task { () throws(ImageError) -> RenderedImage in
            asked.store(true, ordering: .relaxed)
            return try await pipeline.render(bytes, as: variant, deadline: deadline)
        }
        try await waitUntil(timeout: .seconds(10), "the last render to queue behind busy threads", interval: .milliseconds(1)) {
            asked.load(ordering: .relaxed) && BlockingExecutor.shared.pendingCounts.normal > 0
        }
        queued.cancel()
        let result = await queued.result
        let finishedMeanwhile = busyFinished.names.count
        XCTAssertEqual(result.failureValue as? ImageError, .cancelled)
        // Queued last, it would have a thread only once every busy render but the last few (one per thread) had
        // finished.
        XCTAssertLessThan(finishedMeanwhile, busy.count - BlockingExecutor.shared.threadCount,
                          "a queued render must not wait for a thread to report cancellation")
        for task in busy {
            let rendered = try await task.value
            XCTAssertEqual(rendered.format, .jpeg)
        }
    }

    func testRenderBlockingMatchesRender() async throws {
        let bytes = try ImagingHelpers.data("media/story1.jpg")
        let pipeline = ImagePipeline()
        let deadline = ContinuousClock.now + .seconds(30)
        let viaExecutor = try await pipeline.render(bytes, as: .story, deadline: deadline)
        let blocking = try pipeline.renderBlocking(bytes, as: .story, deadline: deadline)
        XCTAssertEqual(viaExecutor.bytes, blocking.bytes)
        XCTAssertEqual(viaExecutor.width, 1080)
        XCTAssertEqual(viaExecutor.height, 1620)
    }

    func testDeadlineStopsQueuedWork() async throws {
        let bytes = try ImagingHelpers.data("media/hero.jpg")
        let pipeline = ImagePipeline()
        do {
            _ = try await pipeline.render(bytes, as: .attachment, deadline: ContinuousClock.now - .milliseconds(1))
            XCTFail("a render past its deadline must fail")
        } catch {
            XCTAssertEqual(error, .deadlineExceeded)
        }
    }
}

private extension Result {
    var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// Names appended from pool threads, in order.
private final class OrderRecorder: Sendable {
    private let list = Mutex<[String]>([])

    func append(_ name: String) { list.withLock { $0.append(name) } }

    var names: [String] { list.withLock { $0 } }
}
