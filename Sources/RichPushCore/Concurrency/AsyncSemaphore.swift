import Synchronization

/// A weighted semaphore for tasks: `acquire` waits until its units are free, in the semaphore's `Order`.
///
/// In arrival order a later small request never overtakes an earlier large one, so a large one cannot starve; the
/// consumer's job slots (units are jobs) use it. The render memory budget (units are bytes) lets a request that fits
/// overtake one that does not, so small renders are not held behind a large one that cannot start yet, until the
/// large one has waited its `patience`: from then on nothing overtakes it, so it starves for at most that long. A
/// waiter whose deadline passes fails with `deadlineExceeded` and a cancelled one with `cancelled`; either leaves the
/// queue at once and lets the next ones through.
///
/// Cost: one lock per acquire and release; a waiter with a deadline also owns one sleeping task.
package final class AsyncSemaphore: Sendable {
    /// Why `acquire` gave up; nothing is held then.
    package enum Failure: Error, Equatable, Sendable {
        case deadlineExceeded
        case cancelled
    }

    /// Who goes first when units come free.
    package enum Order: Sendable {
        /// Strictly in arrival order.
        case arrival
        /// The earliest waiter that fits, until a waiter that does not fit has waited `patience`.
        case firstFit(patience: Duration)
    }

    /// The most units held at once.
    package let capacity: Int
    package let order: Order

    private struct Waiter {
        var id: UInt64
        var units: Int
        var since: ContinuousClock.Instant
        var continuation: CheckedContinuation<Result<Void, Failure>, Never>
    }

    private struct State {
        var held = 0
        var nextID: UInt64 = 0
        var waiters: [Waiter] = []
    }

    private let state = Mutex(State())

    package init(capacity: Int, order: Order = .arrival) {
        self.capacity = max(1, capacity)
        self.order = order
    }

    /// Units held right now.
    package var heldUnits: Int { state.withLock { $0.held } }

    /// Acquirers waiting right now.
    package var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// Acquires `units` (at most `capacity`: a larger request takes the whole semaphore and so runs alone), waiting
    /// in arrival order until they are free, and returns the amount held: hand it to `release`. Without a
    /// `deadline` it waits as long as it takes, unless the task is cancelled.
    package func acquire(_ units: Int, deadline: ContinuousClock.Instant? = nil) async throws(Failure) -> Int {
        let amount = min(max(0, units), capacity)
        if Task.isCancelled { throw .cancelled }
        let now = ContinuousClock.now
        let granted = state.withLock { state in
            guard state.held + amount <= capacity, !mustWait(behind: state.waiters, now: now) else { return false }
            state.held += amount
            return true
        }
        if granted { return amount }
        if let deadline, ContinuousClock.now >= deadline { throw .deadlineExceeded }

        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let timer = deadline.map { deadline in
            Task { [weak self] in
                try? await Task.sleep(until: deadline, clock: .continuous)
                if !Task.isCancelled { self?.withdraw(id, because: .deadlineExceeded) }
            }
        }
        defer { timer?.cancel() }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, Failure>, Never>) in
                let resumeNow: Result<Void, Failure>? = state.withLock { state in
                    // Cancelled between the check above and here: the handler found no waiter to remove.
                    if Task.isCancelled { return .failure(.cancelled) }
                    state.waiters.append(Waiter(id: id, units: amount, since: now, continuation: continuation))
                    return nil
                }
                if let resumeNow { continuation.resume(returning: resumeNow) }
                grantWaiters()
            }
        } onCancel: {
            withdraw(id, because: .cancelled)
        }
        try result.get()
        return amount
    }

    /// Gives back what `acquire` returned, and lets the waiters at the head of the queue through.
    package func release(_ units: Int) {
        state.withLock { $0.held = max(0, $0.held - units) }
        grantWaiters()
    }

    /// Removes a waiter that gave up and wakes it with `failure`; a waiter already granted is left alone.
    private func withdraw(_ id: UInt64, because failure: Failure) {
        let waiter: Waiter? = state.withLock { state in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        guard let waiter else { return }
        waiter.continuation.resume(returning: .failure(failure))
        // The head may have been the one blocking the queue.
        grantWaiters()
    }

    /// Whether a new request must queue behind `waiters` even if it fits: always in arrival order; in first-fit
    /// order only behind a waiter that has waited its patience.
    private func mustWait(behind waiters: [Waiter], now: ContinuousClock.Instant) -> Bool {
        guard let first = waiters.first else { return false }
        switch order {
        case .arrival: return true
        case .firstFit(let patience): return now - first.since >= patience
        }
    }

    /// Grants waiters in queue order while they fit. In arrival order it stops at the first that does not; in
    /// first-fit order it passes over one that does not, unless that one has waited its patience.
    private func grantWaiters() {
        let now = ContinuousClock.now
        let ready: [Waiter] = state.withLock { state in
            var ready: [Waiter] = []
            var index = 0
            while index < state.waiters.count {
                let waiter = state.waiters[index]
                if state.held + waiter.units <= capacity {
                    state.held += waiter.units
                    ready.append(state.waiters.remove(at: index))
                    continue
                }
                guard case .firstFit(let patience) = order, now - waiter.since < patience else { break }
                index += 1
            }
            return ready
        }
        for waiter in ready { waiter.continuation.resume(returning: .success(())) }
    }
}
