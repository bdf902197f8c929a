import Foundation
import Synchronization

/// Something the writer must record in Redis for one job entry: always ends with an `XACK`.
enum Completion: Sendable {
    /// `XADD <results> … job_id entry_id result`, then ack.
    case result(entryID: String, jobID: String, resultJSON: Data, missingJobField: Bool)
    /// `XADD <dead letters> … <fields>`, then ack.
    case deadLetter(entryID: String, fields: [Data])
    /// The entry was deleted while pending: nothing to write, only ack.
    case acknowledgeOnly(entryID: String)

    var entryID: String {
        switch self {
        case .result(let id, _, _, _), .deadLetter(let id, _), .acknowledgeOnly(let id): id
        }
    }
}

/// Unbounded hand-over from job tasks to the single writer, which takes everything queued at once so that a busy
/// consumer writes many results per round trip without ever waiting to fill a batch.
final class CompletionQueue: Sendable {
    private struct State {
        var items: [Completion] = []
        var waiter: CheckedContinuation<[Completion]?, Never>?
        var finished = false
    }

    private let state = Mutex(State())

    func append(_ completion: Completion) {
        let wake: CheckedContinuation<[Completion]?, Never>? = state.withLock { state in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.items.append(completion)
            return nil
        }
        wake?.resume(returning: [completion])
    }

    /// No more appends will come; `next()` returns nil once everything was taken.
    func finish() {
        let wake = state.withLock { state in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        wake?.resume(returning: nil)
    }

    /// Everything queued, waiting for at least one item (without suspending when there is one); nil when finished
    /// and empty. One caller at a time.
    func next() async -> [Completion]? {
        let available = takeAvailable()
        if !available.isEmpty { return available }
        return await withCheckedContinuation { continuation in
            let ready: [Completion]?? = state.withLock { state in
                if !state.items.isEmpty {
                    defer { state.items = [] }
                    return .some(state.items)
                }
                if state.finished { return .some(nil) }
                state.waiter = continuation
                return .none
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Everything queued right now, without waiting.
    func takeAvailable() -> [Completion] {
        state.withLock { state in
            defer { state.items = [] }
            return state.items
        }
    }
}
