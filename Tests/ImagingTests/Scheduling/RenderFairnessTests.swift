import Foundation
import XCTest
import RichPush
@testable import RichPushCore
import TestSupport
@testable import RichPushImaging

/// Issue 36 item 1: one job's expensive renders never hold every render thread or the memory budget, so another
/// job's cheap render is not queued behind them.
final class RenderFairnessTests: XCTestCase {
    private var far: ContinuousClock.Instant { .now + .seconds(120) }

    func testTheLaneAdmitsExpensiveRendersOneFewerThanTheThreadsAndCheapOnesAtOnce() async throws {
        XCTAssertGreaterThanOrEqual(BlockingExecutor.shared.threadCount, 2, "a thread is left for cheap renders")
        XCTAssertEqual(ExpensiveRenderLane.processWide.width, max(1, BlockingExecutor.shared.threadCount - 1))
        let lane = ExpensiveRenderLane(width: 1)
        let (released, release) = AsyncStream.makeStream(of: Void.self)
        let far = self.far
        let first = Task {
            try await lane.admit(if: true, deadline: far) { () throws(ImageError) in
                for await _ in released { break }
            }
        }
        let limit = ContinuousClock.now + .seconds(10)
        while lane.running == 0 {
            guard ContinuousClock.now < limit else { return XCTFail("the first expensive render was never admitted") }
            try await Task.sleep(for: .milliseconds(2))
        }
        let cheap = try await lane.admit(if: false, deadline: far) { () throws(ImageError) in 7 }
        XCTAssertEqual(cheap, 7, "a cheap render does not wait for the lane")
        do {
            _ = try await lane.admit(if: true, deadline: .now + .milliseconds(50)) { () throws(ImageError) in 0 }
            XCTFail("a second expensive render waits for the first")
        } catch {
            XCTAssertEqual(error, .deadlineExceeded)
        }
        release.yield()
        try await first.value
        XCTAssertEqual(lane.running, 0)
    }

    func testPlansAreExpensiveByEstimatedDecodeOrMemory() throws {
        let pipeline = ImagePipeline()
        let capacity = 128 << 20
        let photo = try ImageProbe.probe(ImagingHelpers.data("media/hero.jpg"))
        XCTAssertFalse(pipeline.renderPlan(for: photo, as: .attachment).isExpensive(memoryCapacity: capacity))
        let grid = try ImageProbe.probe(ImagingHelpers.data("imaging/large_grid.heic"))
        let gridPlan = pipeline.renderPlan(for: grid, as: .attachment)
        XCTAssertTrue(gridPlan.isExpensive(memoryCapacity: capacity), "a 12 MP HEVC decode")
        XCTAssertGreaterThanOrEqual(gridPlan.estimatedCost, RenderPlan.expensiveCost)
        var progressive = ImageProbe(format: .jpeg, width: 7300, height: 5475, hasAlpha: false, isAnimated: false,
                                     orientation: 1, hasICCProfile: false)
        progressive.decodeWork = 7300 * 5475 * 3 * 4
        XCTAssertTrue(pipeline.renderPlan(for: progressive, as: .attachment).isExpensive(memoryCapacity: .max),
                      "a 40 MP progressive JPEG")
    }

    /// The review's case: two 12 MP HEIF grids (a few KB each, a full HEVC decode each, more memory each than a
    /// 128 MB budget) and cheap JPEG renders after them. Before, both grids took both render threads and the whole
    /// budget, and the cheap renders finished after the first grid; now each cheap render finishes first.
    func testCheapRendersAreNotQueuedBehindExpensiveOnes() async throws {
        let grid = try ImagingHelpers.data("imaging/large_grid.heic")
        let photo = try ImagingHelpers.data("media/hero.jpg")
        let lane = ExpensiveRenderLane(width: max(1, BlockingExecutor.shared.threadCount - 1))
        let budget = RenderMemoryBudget(capacity: 128 << 20)
        let pipeline = ImagePipeline(memoryBudget: budget, expensiveLane: lane)
        let gridProbe = try ImageProbe.probe(grid)
        XCTAssertGreaterThan(pipeline.renderPlan(for: gridProbe, as: .attachment).estimatedPeakBytes, 128 << 20)
        let small = ImageVariant(name: "small", width: 320, height: 320, fit: .contain)
        let far = self.far
        // A task group hands back its results in the order they finish.
        let order = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<2 {
                group.addTask {
                    _ = try await pipeline.render(grid, as: .attachment, deadline: far)
                    return "grid-\(index)"
                }
            }
            // The grids take what the lane admits and their memory first.
            try await waitUntil(timeout: .seconds(10), "the grids to start", interval: .milliseconds(1)) {
                lane.running == min(2, lane.width) && budget.reservedBytes > 0
            }
            for index in 0..<4 {
                group.addTask {
                    _ = try await pipeline.render(photo, as: small, deadline: far)
                    return "photo-\(index)"
                }
            }
            var order: [String] = []
            for try await name in group { order.append(name) }
            return order
        }
        let firstGrid = try XCTUnwrap(order.firstIndex { $0.hasPrefix("grid") })
        XCTAssertEqual(order[..<firstGrid].filter { $0.hasPrefix("photo") }.count, 4, "\(order)")
    }
}
