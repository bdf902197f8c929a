import Foundation
import XCTest
import RichPush
@testable import RichPushCore
import TestSupport
@testable import RichPushImaging

/// Renders reserve their pixel memory in one budget: the earliest that fits goes first until a large one has waited
/// its patience, they give up at their deadline or when cancelled, and a render larger than three quarters of the
/// budget reserves three quarters.
final class RenderMemoryBudgetTests: XCTestCase {
    /// Computed: XCTest makes every test case instance when the run starts, minutes before some tests run.
    private var far: ContinuousClock.Instant { .now + .seconds(60) }

    /// Polls until `condition` holds (the waiting tasks run concurrently with the test).
    private func eventually(_ what: String, _ condition: () -> Bool, file: StaticString = #filePath, line: UInt = #line) async throws {
        let limit = ContinuousClock.now + .seconds(5)
        while !condition() {
            guard ContinuousClock.now < limit else { return XCTFail("never: \(what)", file: file, line: line) }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Polls with a request of `bytes`, which fits beside what is reserved, until the budget holds it back: the large
    /// waiter has waited its patience. A probe still let through is given back at once.
    private func waitForThePatienceToRunOut(_ budget: RenderMemoryBudget, probing bytes: Int) async throws {
        try await waitUntil(timeout: .seconds(5), "the large one's patience to run out", interval: .milliseconds(10)) {
            do {
                budget.release(try await budget.reserve(bytes, deadline: .now + .milliseconds(5)))
                return false
            } catch {
                return true
            }
        }
    }

    func testWaitsUntilReleasedThenRuns() async throws {
        let budget = RenderMemoryBudget(capacity: 100)
        let held = try await budget.reserve(60, deadline: far)
        XCTAssertEqual(held, 60)
        let far = self.far
        let waiting = Task { try await budget.reserve(60, deadline: far) }
        try await eventually("the second reservation waits") { budget.waitingCount == 1 }
        XCTAssertEqual(budget.reservedBytes, 60)
        budget.release(held)
        let second = try await waiting.value
        XCTAssertEqual(second, 60)
        XCTAssertEqual(budget.reservedBytes, 60)
        budget.release(second)
        XCTAssertEqual(budget.reservedBytes, 0)
    }

    /// Issue 36 item 1: a small render that fits is not held behind a large one that cannot start yet, until the
    /// large one has waited `RenderMemoryBudget.patience`; from then on nothing overtakes it.
    func testSmallWaitersOvertakeALargeOneUntilItsPatienceRunsOut() async throws {
        let budget = RenderMemoryBudget(capacity: 100)
        let held = try await budget.reserve(50, deadline: far)
        let far = self.far
        let large = Task { try await budget.reserve(70, deadline: far) }
        try await eventually("the large one waits") { budget.waitingCount == 1 }
        let small = try await budget.reserve(30, deadline: far)
        XCTAssertEqual(small, 30, "granted at once beside the waiting large one")
        XCTAssertEqual(budget.reservedBytes, 80)

        try await waitForThePatienceToRunOut(budget, probing: 10)
        let late = Task { try await budget.reserve(10, deadline: far) }
        try await eventually("past its patience, the large one is overtaken no more") { budget.waitingCount == 2 }
        XCTAssertEqual(budget.reservedBytes, 80)
        budget.release(held)
        budget.release(small)
        let value1 = try await large.value
        XCTAssertEqual(value1, 70)
        let value2 = try await late.value
        XCTAssertEqual(value2, 10, "and then fits beside it")
        XCTAssertEqual(budget.reservedBytes, 80)
    }

    func testDeadlineWhileWaitingFailsAndLeavesTheQueue() async throws {
        let budget = RenderMemoryBudget(capacity: 100)
        let held = try await budget.reserve(100, deadline: far) + (try await budget.reserve(25, deadline: far))
        let started = ContinuousClock.now
        do {
            _ = try await budget.reserve(10, deadline: started + .milliseconds(80))
            XCTFail("the budget never came free")
        } catch {
            XCTAssertEqual(error, .deadlineExceeded)
        }
        let waited = ContinuousClock.now - started
        XCTAssertGreaterThanOrEqual(waited, .milliseconds(80))
        XCTAssertLessThan(waited, .seconds(2))
        XCTAssertEqual(budget.waitingCount, 0)
        XCTAssertEqual(budget.reservedBytes, 100, "a failed wait reserves nothing")
        // Past its deadline already: fails at once without queueing.
        do {
            _ = try await budget.reserve(10, deadline: .now - .milliseconds(1))
            XCTFail("past deadline")
        } catch {
            XCTAssertEqual(error, .deadlineExceeded)
        }
        budget.release(held)
        let value5 = try await budget.reserve(10, deadline: far)
        XCTAssertEqual(value5, 10)
    }

    func testCancellationWhileWaitingFailsAtOnceAndLetsTheNextThrough() async throws {
        let budget = RenderMemoryBudget(capacity: 100)
        let held = try await budget.reserve(60, deadline: far)
        let far = self.far
        let head = Task { try await budget.reserve(100, deadline: far) }
        try await eventually("the head waits") { budget.waitingCount == 1 }
        // Past its patience, the head holds back even a request that would fit.
        try await waitForThePatienceToRunOut(budget, probing: 10)
        let behind = Task { try await budget.reserve(10, deadline: far) }
        try await eventually("the next one waits behind it") { budget.waitingCount == 2 }
        let cancelled = ContinuousClock.now
        head.cancel()
        let result = await head.result
        XCTAssertLessThan(ContinuousClock.now - cancelled, .seconds(2))
        guard case .failure(let error) = result else { return XCTFail("a cancelled wait must fail: \(result)") }
        XCTAssertEqual(error as? ImageError, .cancelled)
        // With the head gone, 10 fits beside the 60 held.
        let value6 = try await behind.value
        XCTAssertEqual(value6, 10)
        XCTAssertEqual(budget.waitingCount, 0)
        XCTAssertEqual(budget.reservedBytes, 70)
        budget.release(held)
        budget.release(10)
        XCTAssertEqual(budget.reservedBytes, 0)
    }

    func testRenderLargerThanThreeQuartersOfTheBudgetReservesThreeQuarters() async throws {
        let budget = RenderMemoryBudget(capacity: 100)
        let oversize = try await budget.reserve(5_000, deadline: far)
        XCTAssertEqual(oversize, 75, "three quarters, not a refusal")
        let beside = try await budget.reserve(25, deadline: far)
        XCTAssertEqual(beside, 25, "a quarter stays for the renders beside it")
        let far = self.far
        let second = Task { try await budget.reserve(5_000, deadline: far) }
        try await eventually("a second one waits for the first") { budget.waitingCount == 1 }
        budget.release(beside)
        XCTAssertEqual(budget.waitingCount, 1, "two never run at once")
        budget.release(oversize)
        let value8 = try await second.value
        XCTAssertEqual(value8, 75)
    }

    func testPipelineWaitsForBudgetWithinItsDeadlineAndReleasesIt() async throws {
        let bytes = try ImagingHelpers.data("media/hero.jpg")
        let budget = RenderMemoryBudget(capacity: 64 << 20)
        let pipeline = ImagePipeline(memoryBudget: budget)
        let rendered = try await pipeline.render(bytes, as: .attachment, deadline: far)
        XCTAssertEqual(rendered.format, .jpeg)
        XCTAssertEqual(budget.reservedBytes, 0, "a finished render gives its reservation back")

        let held = try await budget.reserve(budget.capacity, deadline: far)
            + (try await budget.reserve(budget.capacity - budget.largestReservation, deadline: far))
        do {
            _ = try await pipeline.render(bytes, as: .attachment, deadline: .now + .milliseconds(100))
            XCTFail("the budget was held past the deadline")
        } catch {
            XCTAssertEqual(error, .deadlineExceeded)
        }
        let far = self.far
        let waiting = Task { try await pipeline.render(bytes, as: .attachment, deadline: far) }
        try await eventually("the render waits for budget") { budget.waitingCount == 1 }
        budget.release(held)
        let value9 = try await waiting.value.bytes
        XCTAssertEqual(value9, rendered.bytes)
        XCTAssertEqual(budget.reservedBytes, 0)
    }

    func testEstimateFollowsTheDecodeScale() throws {
        let pipeline = ImagePipeline()
        let huge = ImageProbe(format: .png, width: 6000, height: 6000, hasAlpha: true, isAnimated: false, orientation: 1, hasICCProfile: false)
        let fullSize = 6000 * 6000 * 4
        let small = ImageVariant(name: "small", width: 200, height: 200, fit: .contain)
        let shrunk = pipeline.renderPlan(for: huge, as: small).estimatedPeakBytes
        XCTAssertLessThan(shrunk, fullSize / 16, "the PNG is box-shrunk by 15 while decoding")
        var interlaced = huge
        interlaced.isInterlaced = true
        XCTAssertGreaterThan(pipeline.renderPlan(for: interlaced, as: small).estimatedPeakBytes, shrunk, "running sums for the passes")
        XCTAssertLessThan(pipeline.renderPlan(for: interlaced, as: small).estimatedPeakBytes, fullSize / 8)
        var unshrunk = pipeline
        unshrunk.resizesPNGWhileDecoding = false
        XCTAssertGreaterThanOrEqual(unshrunk.renderPlan(for: huge, as: small).estimatedPeakBytes, 2 * fullSize)
        // JPEG at 1/8 scale: about 1/64 of the full-size RGB image, plus the output.
        let jpeg = ImageProbe(format: .jpeg, width: 4000, height: 3000, hasAlpha: false, isAnimated: false, orientation: 1, hasICCProfile: false)
        XCTAssertLessThan(pipeline.renderPlan(for: jpeg, as: small).estimatedPeakBytes,
                          4000 * 3000 * 3 / 8)
        let heic = ImageProbe(format: .heic, width: 4000, height: 3000, hasAlpha: false, isAnimated: false, orientation: 1, hasICCProfile: false)
        XCTAssertGreaterThan(pipeline.renderPlan(for: heic, as: .attachment).estimatedPeakBytes, 4000 * 3000 * 4, "HEIC decodes at full size")
        // A quality search holds a decoded candidate and both images' lower scales: 3 + 8 bytes per output pixel.
        var searched = ImageVariant.attachment
        searched.qualityTarget = 80
        let output = 1038 * 779
        XCTAssertGreaterThan(pipeline.renderPlan(for: jpeg, as: searched).estimatedPeakBytes - pipeline.renderPlan(for: jpeg, as: .attachment).estimatedPeakBytes,
                             11 * output)
    }

    func testDefaultCapacityIsAQuarterOfTheSmallerOfCgroupAndMachine() {
        let meminfo = "MemTotal:        8388608 kB\nMemFree:         1000 kB\n"
        XCTAssertEqual(RenderMemoryBudget.defaultCapacity(cgroupLimit: "max\n", meminfo: meminfo), 2 << 30)
        XCTAssertEqual(RenderMemoryBudget.defaultCapacity(cgroupLimit: nil, meminfo: "MemTotal: 2097152 kB\n"), 512 << 20)
        XCTAssertEqual(RenderMemoryBudget.defaultCapacity(cgroupLimit: "1073741824\n", meminfo: meminfo), 256 << 20)
        XCTAssertEqual(RenderMemoryBudget.defaultCapacity(cgroupLimit: "134217728", meminfo: meminfo), 64 << 20, "the floor")
        XCTAssertEqual(RenderMemoryBudget.defaultCapacity(cgroupLimit: "max", meminfo: "MemTotal: 134217728 kB\n"), 2 << 30, "the ceiling")
        XCTAssertEqual(RenderMemoryBudget.defaultCapacity(cgroupLimit: nil, meminfo: nil), 512 << 20)
    }
}
