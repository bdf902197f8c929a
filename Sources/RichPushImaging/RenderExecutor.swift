import Foundation
import Synchronization
import RichPushCore

/// Runs CPU-bound renders on threads of its own, one per core.
///
/// Why not on the calling task: a decode or resize holds its thread for tens of milliseconds, and Swift's
/// cooperative pool has only one thread per core. Renders there would delay everything else in the process,
/// deadline timers and fetch completions included. A fixed number of render threads also bounds how many decoded
/// images are in memory at once.
final class RenderExecutor: Sendable {
    static let shared = RenderExecutor(threadCount: max(1, ProcessInfo.processInfo.activeProcessorCount))

    private let pending = Mutex<[@Sendable () -> Void]>([])
    private let queued = DispatchSemaphore(value: 0)

    init(threadCount: Int) {
        for index in 0..<threadCount {
            let thread = Thread { [self] in
                while true {
                    queued.wait()
                    let work = pending.withLock { $0.isEmpty ? nil : $0.removeFirst() }
                    work?()
                }
            }
            thread.name = "richpush-render-\(index)"
            thread.start()
        }
    }

    /// Runs `work` on a render thread and returns its result.
    ///
    /// Cancelling the calling task returns `.cancelled` at once, even while the work is still queued; work that
    /// already started sees the cancellation flag at its next band check.
    func run<Value: Sendable>(
        _ work: @escaping @Sendable (RenderCancellation) throws(ImageError) -> Value
    ) async throws(ImageError) -> Value {
        let cancellation = RenderCancellation()
        let waiter = Mutex<CheckedContinuation<Result<Value, ImageError>, Never>?>(nil)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, ImageError>, Never>) in
                waiter.withLock { $0 = continuation }
                if cancellation.isCancelled {
                    waiter.withLock { $0.take() }?.resume(returning: .failure(.cancelled))
                    return
                }
                pending.withLock {
                    $0.append {
                        let outcome: Result<Value, ImageError>
                        if cancellation.isCancelled {
                            outcome = .failure(.cancelled)
                        } else {
                            do throws(ImageError) {
                                outcome = .success(try work(cancellation))
                            } catch {
                                outcome = .failure(error)
                            }
                        }
                        waiter.withLock { $0.take() }?.resume(returning: outcome)
                    }
                }
                queued.signal()
            }
        } onCancel: {
            cancellation.cancel()
            waiter.withLock { $0.take() }?.resume(returning: .failure(.cancelled))
        }
        return try result.get()
    }
}

/// Set when the task that asked for a render is cancelled; render loops poll it between bands.
final class RenderCancellation: Sendable {
    private let flag = Atomic<Bool>(false)

    func cancel() { flag.store(true, ordering: .relaxed) }

    var isCancelled: Bool { flag.load(ordering: .relaxed) }
}
