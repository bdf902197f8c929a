import Foundation

/// Where a store reads the time. Freshness, negative entries, retention and GC ages are wall-clock dates (they are
/// stored in sidecars and compared across processes); deadlines and lock, lease and single-flight waits are
/// monotonic instants. Both come from here, so a test moves time forward instead of sleeping through it.
package protocol CacheClock: Sendable {
    /// The wall-clock time now.
    var date: Date { get }
    /// The monotonic time now; the deadlines a store is given are compared with it.
    var instant: ContinuousClock.Instant { get }
    /// Suspends until `instant` reaches `deadline`; throws `CancellationError` when the task is cancelled.
    func sleep(until deadline: ContinuousClock.Instant) async throws
}

/// The system's clocks, `Date()` and `ContinuousClock`; each reading costs one `clock_gettime`.
package struct SystemCacheClock: CacheClock {
    package init() {}

    package var date: Date { Date() }

    package var instant: ContinuousClock.Instant { .now }

    package func sleep(until deadline: ContinuousClock.Instant) async throws {
        try await Task.sleep(until: deadline, clock: .continuous)
    }
}
