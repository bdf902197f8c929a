import RichPushCore

/// Admits expensive renders (`RenderPlan.isExpensive`) a few at a time, so that they can never hold every render
/// thread: one fewer than the render threads, at least one. Cheap renders do not pass through it, and expensive
/// ones wait here, in arrival order and within their deadline, not in the render threads' queue, so a cheap render
/// queues behind cheap ones only. One job's expensive renders then delay another job's cheap one by at most the
/// share of a core the kernel gives the expensive ones running beside it.
///
/// Why a lane by estimated cost rather than a CPU-time limit per render: the cost is known from the headers before
/// anything runs, so an expensive render waits without taking a thread, while a time limit would let it take the
/// thread first and spend its CPU until the limit. docs/architecture.md ("Fair rendering") has the measurements.
package final class ExpensiveRenderLane: Sendable {
    /// The lane shared by every pipeline not given one of its own, sized to `BlockingExecutor.shared`.
    package static let processWide = ExpensiveRenderLane(width: max(1, BlockingExecutor.shared.threadCount - 1))

    private let slots: AsyncSemaphore

    /// Expensive renders admitted at once.
    package var width: Int { slots.capacity }

    package init(width: Int) {
        slots = AsyncSemaphore(capacity: width)
    }

    /// Expensive renders running now.
    package var running: Int { slots.heldUnits }

    /// Runs `body` at once when `isExpensive` is false; otherwise once the lane admits it, throwing
    /// `deadlineExceeded` or `cancelled` if it is not admitted in time.
    func admit<Value>(
        if isExpensive: Bool, deadline: ContinuousClock.Instant, _ body: () async throws(ImageError) -> Value
    ) async throws(ImageError) -> Value {
        guard isExpensive else { return try await body() }
        do {
            _ = try await slots.acquire(1, deadline: deadline)
        } catch {
            switch error {
            case .deadlineExceeded: throw .deadlineExceeded
            case .cancelled: throw .cancelled
            }
        }
        defer { slots.release(1) }
        return try await body()
    }
}
