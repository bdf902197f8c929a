import CTestInstruments
import Synchronization

/// Measures the heap memory a render really holds at its peak, to check `RenderPlan.estimatedPeakBytes` against
/// it: a `WorkBudget` whose `onCheck` is ``sample()`` samples the bytes malloc has handed out at each of its checks
/// (between every band of rows, so every whole-image buffer and decoder state that lives across a band is seen).
///
/// Counts everything the process allocates meanwhile, libraries' state included, so it is for tests and
/// benchmarks that render one image at a time. Cost per sample: a walk of malloc's free lists (microseconds).
public final class RenderMemoryMeter: Sendable {
    private struct State {
        var baseline: Int
        var peak: Int
    }

    private let state: Mutex<State>

    /// Starts measuring from the bytes in use now.
    public init() {
        let now = Int(richpush_heap_bytes_in_use())
        state = Mutex(State(baseline: now, peak: now))
    }

    /// Records the bytes in use now if they are a new peak.
    public func sample() {
        let now = Int(richpush_heap_bytes_in_use())
        state.withLock { $0.peak = max($0.peak, now) }
    }

    /// The highest sample above the bytes in use when the meter was made.
    public var peakGrowth: Int { state.withLock { $0.peak - $0.baseline } }
}
