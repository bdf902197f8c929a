import Synchronization
import RichPushCore

/// The store's size as Prometheus gauges: `richpush_cache_bytes` and `richpush_cache_objects`.
///
/// The figures come from ``MediaStore/statistics()``, which scans every sidecar (or lists the bucket), so a refresh
/// scans at most once per `interval` (60 s by default) and otherwise keeps the last figures; the process's final
/// render always rescans. A running total kept in this process would be cheaper but wrong: other processes and
/// hosts share the cache root, and `cache gc` evicts behind our back. A failed scan leaves the gauges out.
package final class CacheGauges: MetricsSource {
    private struct State {
        var objects: Int?
        var bytes: Int?
        var lastScan: ContinuousClock.Instant?
    }

    private let store: any MaintainedMediaStore
    private let interval: Duration
    private let state = Mutex(State())

    package init(store: any MaintainedMediaStore, interval: Duration = .seconds(60)) {
        self.store = store
        self.interval = interval
    }

    package func refresh(final: Bool) async {
        let now = ContinuousClock.now
        // Claims the scan before it starts, so concurrent renders (two scrapes at once) do not both scan.
        let due = state.withLock { state in
            guard final || state.lastScan.map({ now - $0 >= interval }) ?? true else { return false }
            state.lastScan = now
            return true
        }
        guard due else { return }
        let statistics = try? await store.statistics()
        state.withLock { state in
            state.objects = statistics?.objectCount
            state.bytes = statistics?.totalBytes
        }
    }

    package var prometheusText: String {
        let (objects, bytes) = state.withLock { ($0.objects, $0.bytes) }
        guard let objects, let bytes else { return "" }
        return "# HELP richpush_cache_bytes Bytes of the objects in the cache (scanned at most once a minute).\n"
            + "# TYPE richpush_cache_bytes gauge\nrichpush_cache_bytes \(bytes)\n"
            + "# HELP richpush_cache_objects Objects in the cache (scanned at most once a minute).\n"
            + "# TYPE richpush_cache_objects gauge\nrichpush_cache_objects \(objects)\n"
    }
}
