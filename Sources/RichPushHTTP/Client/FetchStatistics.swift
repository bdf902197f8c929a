import Synchronization
import RichPushCore

/// What a fetcher has downloaded: bytes and the duration of each successful fetch, for metrics.
///
/// Shared by every transfer of one `Fetcher`; recording is one short critical section per fetch.
package final class FetchStatistics: Sendable {
    package struct Snapshot: Sendable, Hashable {
        /// Body bytes of successful fetches (after any content decoding), local origins included.
        package var bytes = 0
        package var fetches = 0
        /// From the start of the first attempt to the body in memory, retries and their waits included.
        package var durations = LatencyHistogram()
    }

    private let state = Mutex(Snapshot())

    init() {}

    func record(bytes: Int, duration: Duration) {
        state.withLock { state in
            state.bytes += bytes
            state.fetches += 1
            state.durations.observe(duration)
        }
    }

    package var snapshot: Snapshot { state.withLock { $0 } }
}
