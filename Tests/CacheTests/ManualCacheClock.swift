import Foundation
import Synchronization
import RichPushCore

@testable import RichPushCache

/// A cache clock that stands still until the test moves it, so freshness, TTL, GC age and wait-limit tests take no
/// real time. It starts at the real time (file modification times, written by the kernel, stay comparable), on a
/// whole second, so the millisecond-rounded dates a store writes equal the clock's readings.
final class ManualCacheClock: CacheClock {
    private struct Sleeper {
        let deadline: ContinuousClock.Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var elapsed = Duration.zero
        var sleepers: [UInt64: Sleeper] = [:]
        var nextSleeper: UInt64 = 0
    }

    private let startDate = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
    private let startInstant = ContinuousClock.now
    private let state = Mutex(State())

    var date: Date { startDate.addingTimeInterval(state.withLock { $0.elapsed }.timeInterval) }

    var instant: ContinuousClock.Instant { startInstant + state.withLock { $0.elapsed } }

    /// Moves both readings forward by `duration` and wakes every sleeper whose deadline that reaches.
    func advance(by duration: Duration) {
        let due = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.elapsed += duration
            let now = startInstant + state.elapsed
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for identifier in due.keys { state.sleepers[identifier] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in due { continuation.resume() }
    }

    func sleep(until deadline: ContinuousClock.Instant) async throws {
        let identifier = state.withLock { state -> UInt64 in
            state.nextSleeper += 1
            return state.nextSleeper
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let isDue = state.withLock { state -> Bool in
                    if deadline <= startInstant + state.elapsed { return true }
                    state.sleepers[identifier] = Sleeper(deadline: deadline, continuation: continuation)
                    return false
                }
                if isDue { return continuation.resume() }
                // Cancelled before registering: the cancellation handler found nothing to end.
                if Task.isCancelled { wake(identifier, throwing: CancellationError()) }
            }
        } onCancel: {
            wake(identifier, throwing: CancellationError())
        }
    }

    private func wake(_ identifier: UInt64, throwing error: any Error) {
        state.withLock { $0.sleepers.removeValue(forKey: identifier) }?.continuation.resume(throwing: error)
    }
}
