/// Exponential backoff with jitter for reconnecting: 50 ms, doubling, capped at 2 s.
struct Backoff: Sendable {
    private static let initial: Duration = .milliseconds(50)
    private static let cap: Duration = .seconds(2)
    private(set) var next: Duration = Backoff.initial

    mutating func reset() { next = Backoff.initial }

    /// Sleeps the current delay (±20 % jitter so restarted consumers do not reconnect in lockstep), then doubles it.
    /// Returns early, without throwing, if the task is cancelled.
    mutating func sleep() async {
        let jitter = Double.random(in: 0.8...1.2)
        try? await Task.sleep(for: next * jitter)
        next = min(next * 2, Backoff.cap)
    }
}
