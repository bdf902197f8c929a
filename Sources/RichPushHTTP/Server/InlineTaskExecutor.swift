import Synchronization

/// Runs one request's task on the libmicrohttpd thread that took the request, for as long as its work is ready to
/// run, and on Swift's global pool once it waits for something outside (a fetch, a render, a timer).
///
/// Why: a warm enrichment is little work, and handing it to the pool and back cost about as much again (suspending
/// and resuming the connection re-registers it with epoll, wakes a pool thread, and wakes the polling thread through
/// its event fd; docs/benchmarks.md, "serve against process"). Run inline, a warm request is answered in the same
/// access-handler call, with no hop at all.
/// A task that has to wait continues on the pool exactly as before, so a slow request never holds the polling
/// thread. One executor per request; it costs one small allocation.
final class InlineTaskExecutor: TaskExecutor {
    private struct State {
        /// True while `runInline` runs the queue on the calling thread.
        var isRunningInline = false
        var jobs: [UnownedJob] = []
    }

    private let state = Mutex(State())

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let queued = state.withLock { state in
            guard state.isRunningInline else { return false }
            state.jobs.append(job)
            return true
        }
        if !queued { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }

    /// Calls `start` (which creates a task preferring this executor), then runs every job that becomes ready on
    /// this thread until none is left. Jobs enqueued after that go to the global pool.
    func runInline(_ start: () -> Void) {
        state.withLock { $0.isRunningInline = true }
        start()
        while let job = nextInlineJob() {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    private func nextInlineJob() -> UnownedJob? {
        state.withLock { state in
            guard !state.jobs.isEmpty else {
                state.isRunningInline = false
                return nil
            }
            return state.jobs.removeFirst()
        }
    }
}
