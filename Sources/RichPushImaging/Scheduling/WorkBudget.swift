import RichPushCore
/// Checked between bands of rows so a hard deadline or a cancelled task stops work within a few milliseconds.
package struct WorkBudget: Sendable {
    var deadline: ContinuousClock.Instant
    /// Set by `ImagePipeline.render` when its caller is cancelled; the work runs off the caller's task, so
    /// `Task.isCancelled` alone would not see it.
    var cancellation: BlockingCancellation?
    /// Called at every check when set, between bands of rows: what measures a render from outside (its memory
    /// between bands, in the tests' `RenderMemoryMeter`) looks through it.
    var onCheck: (@Sendable () -> Void)?

    package init(
        deadline: ContinuousClock.Instant, cancellation: BlockingCancellation? = nil,
        onCheck: (@Sendable () -> Void)? = nil
    ) {
        self.deadline = deadline
        self.cancellation = cancellation
        self.onCheck = onCheck
    }

    /// Rows per band between checks; a band of a 16k-wide image stays well under 50 ms.
    static let bandRows = 16

    /// The share of this budget a perceptual score may use from `start`: half the time left, so that scoring
    /// candidates never turns a render that would finish into a missed deadline; cancelled with this budget. The
    /// `onCheck` hook is not carried over.
    func halfOfTimeLeft(from start: ContinuousClock.Instant) -> WorkBudget {
        WorkBudget(deadline: min(deadline, start + (deadline - start) / 2), cancellation: cancellation)
    }

    func check() throws(ImageError) {
        onCheck?()
        if Task.isCancelled || cancellation?.isCancelled == true { throw .cancelled }
        if ContinuousClock.now >= deadline { throw .deadlineExceeded }
    }
}
