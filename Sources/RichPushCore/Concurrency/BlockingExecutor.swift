import Foundation
import Synchronization

/// Runs blocking work on threads of its own: renders (decode, resize, encode) and the cache's fsynced writes.
///
/// Why not on the calling task: a decode holds its thread for tens of milliseconds and an fsync for as long as the
/// disk takes, and Swift's cooperative pool has only one thread per core. Blocking work there would delay everything
/// else in the process, deadline timers and fetch completions included. A fixed number of threads also bounds how
/// many decoded images are in memory at once. The model is swift-nio's `NIOThreadPool`: one pool, FIFO.
///
/// Small page-cache reads (a sidecar of a few hundred bytes on a warm hit) stay on the calling task: a hand-over
/// to a thread costs more than the read.
package final class BlockingExecutor: Sendable {
    /// The process's pool: one thread per core, and at least two, so that on a one-core machine an expensive render
    /// (which the expensive lane admits one fewer than the threads at a time, at least one) still leaves a thread to
    /// a cheap one; the kernel shares the core between them.
    package static let shared = BlockingExecutor(threadCount: max(2, ProcessInfo.processInfo.activeProcessorCount))

    /// The pool's threads.
    package let threadCount: Int

    /// Work waiting for a thread: `complete`'s first (short writes that hold a cache lock, which must not wait behind
    /// a queue of renders), then `run`'s, each in arrival order.
    private struct Pending {
        var urgent: [@Sendable () -> Void] = []
        var normal: [@Sendable () -> Void] = []

        mutating func next() -> (@Sendable () -> Void)? {
            if !urgent.isEmpty { return urgent.removeFirst() }
            return normal.isEmpty ? nil : normal.removeFirst()
        }
    }

    private let pending = Mutex(Pending())
    private let queued = DispatchSemaphore(value: 0)
    /// The pool's threads, so that work can tell where it runs (`isCurrentThreadInPool`).
    private let threads = Mutex<Set<pthread_t>>([])

    /// Starts `threadCount` threads that live as long as the process.
    package init(threadCount: Int) {
        self.threadCount = threadCount
        for index in 0..<threadCount {
            let thread = Thread { [self] in
                threads.withLock { _ = $0.insert(pthread_self()) }
                while true {
                    queued.wait()
                    let work = pending.withLock { $0.next() }
                    work?()
                }
            }
            thread.name = "richpush-blocking-\(index)"
            thread.start()
        }
    }

    /// Runs `work` on a pool thread and returns its result, or throws `cancelledError` when the calling task is
    /// cancelled: at once, even while the work is still queued. Work that already started sees the flag it is given
    /// at its next check, so it must be work that may be abandoned (a render, not a publish).
    package func run<Value: Sendable, Failure: Error>(
        cancelledError: Failure,
        _ work: @escaping @Sendable (BlockingCancellation) throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        let cancellation = BlockingCancellation()
        let waiter = Mutex<CheckedContinuation<Result<Value, Failure>, Never>?>(nil)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, Failure>, Never>) in
                waiter.withLock { $0 = continuation }
                if cancellation.isCancelled {
                    waiter.withLock { $0.take() }?.resume(returning: .failure(cancelledError))
                    return
                }
                enqueue(urgent: false) {
                    let outcome: Result<Value, Failure>
                    if cancellation.isCancelled {
                        outcome = .failure(cancelledError)
                    } else {
                        do throws(Failure) {
                            outcome = .success(try work(cancellation))
                        } catch {
                            outcome = .failure(error)
                        }
                    }
                    waiter.withLock { $0.take() }?.resume(returning: outcome)
                }
            }
        } onCancel: {
            cancellation.cancel()
            waiter.withLock { $0.take() }?.resume(returning: .failure(cancelledError))
        }
        return try result.get()
    }

    /// Runs `work` on a pool thread and waits for it to finish, cancellation or not: for work whose end the caller
    /// must see before it goes on, such as a publish that has to complete before its key's lock is released. It goes
    /// before any queued `run` work, so keep it short (a write and an fsync, not a render).
    package func complete<Value: Sendable, Failure: Error>(
        _ work: @escaping @Sendable () throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, Failure>, Never>) in
            enqueue(urgent: true) {
                do throws(Failure) {
                    continuation.resume(returning: .success(try work()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// Work waiting for a thread right now, `complete`'s and `run`'s (tests wait for this instead of sleeping).
    var pendingCounts: (urgent: Int, normal: Int) { pending.withLock { ($0.urgent.count, $0.normal.count) } }

    /// Whether the calling code runs on one of this pool's threads (and so not on the cooperative pool).
    package var isCurrentThreadInPool: Bool { threads.withLock { $0.contains(pthread_self()) } }

    private func enqueue(urgent: Bool, _ work: @escaping @Sendable () -> Void) {
        pending.withLock { pending in
            if urgent { pending.urgent.append(work) } else { pending.normal.append(work) }
        }
        queued.signal()
    }
}

/// Set when the task that asked for blocking work is cancelled; long loops (render bands) poll it.
package final class BlockingCancellation: Sendable {
    private let flag = Atomic<Bool>(false)

    package init() {}

    package func cancel() { flag.store(true, ordering: .relaxed) }

    package var isCancelled: Bool { flag.load(ordering: .relaxed) }
}
