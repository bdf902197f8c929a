import RichPushCore
/// Checked between bands of rows so a hard deadline or a cancelled task stops work within a few milliseconds.
struct WorkBudget: Sendable {
    var deadline: ContinuousClock.Instant
    /// Set by `ImagePipeline.render` when its caller is cancelled; the work runs off the caller's task, so
    /// `Task.isCancelled` alone would not see it.
    var cancellation: BlockingCancellation?
    /// Sampled at every check when set: tests measure a render's real peak memory with it.
    var meter: RenderMemoryMeter?

    init(deadline: ContinuousClock.Instant, cancellation: BlockingCancellation? = nil, meter: RenderMemoryMeter? = nil) {
        self.deadline = deadline
        self.cancellation = cancellation
        self.meter = meter
    }

    /// Rows per band between checks; a band of a 16k-wide image stays well under 50 ms.
    static let bandRows = 16

    func check() throws(ImageError) {
        meter?.sample()
        if Task.isCancelled || cancellation?.isCancelled == true { throw .cancelled }
        if ContinuousClock.now >= deadline { throw .deadlineExceeded }
    }
}
