import Synchronization

/// Counts the jobs in flight against the configured concurrency and lets the reader wait for a free slot.
final class JobSlots: Sendable {
    private struct State {
        var active = 0
        var waiter: CheckedContinuation<Void, Never>?
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) { self.capacity = capacity }

    var free: Int { state.withLock { capacity - $0.active } }

    var active: Int { state.withLock { $0.active } }

    func take(_ count: Int) { state.withLock { $0.active += count } }

    func release() {
        let wake = state.withLock { state in
            state.active -= 1
            defer { state.waiter = nil }
            return state.waiter
        }
        wake?.resume()
    }

    /// Returns once at least one slot is free, without suspending when one already is. One caller at a time (the
    /// reader).
    func waitForFreeSlot() async {
        if free > 0 { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state in
                if state.active < capacity { return true }
                state.waiter = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
