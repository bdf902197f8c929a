import Synchronization
import RichPushCore

/// The store's size as Prometheus gauges, `richpush_cache_bytes` and `richpush_cache_objects`, and this process's
/// resolutions: `richpush_cache_resolutions_total` (cold keys resolved; the joiners of one in flight do not count),
/// `richpush_cache_resolution_waiters` (callers waiting on one now) and, for the directory,
/// `richpush_cache_reads_total` by entry (sidecars and negative entries read).
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
        var text = "# HELP richpush_cache_resolutions_total Cache keys this process resolved (looked up under the key's lock, then rendered, revalidated or found); callers that joined a resolution in flight are not counted.\n"
            + "# TYPE richpush_cache_resolutions_total counter\nrichpush_cache_resolutions_total \(store.flightsStarted)\n"
            + "# HELP richpush_cache_resolution_waiters Callers waiting now for a resolution in this process, leaders included.\n"
            + "# TYPE richpush_cache_resolution_waiters gauge\nrichpush_cache_resolution_waiters \(store.callersWaiting)\n"
        if let reads = store.directoryReads {
            text += "# HELP richpush_cache_reads_total Reads of the cache directory's entries by this process, by entry: object sidecars, negative entries.\n"
                + "# TYPE richpush_cache_reads_total counter\n"
                + "richpush_cache_reads_total{entry=\"object\"} \(reads.objects)\n"
                + "richpush_cache_reads_total{entry=\"negative\"} \(reads.failures)\n"
        }
        let (objects, bytes) = state.withLock { ($0.objects, $0.bytes) }
        guard let objects, let bytes else { return text }
        return text + "# HELP richpush_cache_bytes Bytes of the objects in the cache (scanned at most once a minute).\n"
            + "# TYPE richpush_cache_bytes gauge\nrichpush_cache_bytes \(bytes)\n"
            + "# HELP richpush_cache_objects Objects in the cache (scanned at most once a minute).\n"
            + "# TYPE richpush_cache_objects gauge\nrichpush_cache_objects \(objects)\n"
    }
}
