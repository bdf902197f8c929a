import Glibc

/// Checked between bands of rows so a hard deadline or a cancelled task stops work within a few milliseconds.
struct WorkBudget: Sendable {
    var deadline: ContinuousClock.Instant

    /// Rows per band between checks; a band of a 16k-wide image stays well under 50 ms.
    static let bandRows = 16

    func check() throws(ImageError) {
        if Task.isCancelled { throw .cancelled }
        if ContinuousClock.now >= deadline { throw .deadlineExceeded }
    }

    /// The deadline as CLOCK_MONOTONIC nanoseconds, for checks inside long C library calls.
    var monotonicDeadlineNanoseconds: Int64 {
        let remaining = ContinuousClock.now.duration(to: deadline)
        let (seconds, attoseconds) = remaining.components
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nowNanoseconds = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
        if seconds > 1_000_000 { return 0 }   // effectively no deadline
        let remainingNanoseconds = max(1, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        return nowNanoseconds + remainingNanoseconds
    }
}
