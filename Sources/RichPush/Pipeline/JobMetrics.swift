import Foundation
import Synchronization

/// Counters and latency histograms over finished jobs, rendered in the Prometheus text format.
///
/// Recording is a short critical section per job; rendering copies the state once.
public final class JobMetrics: Sendable {
    /// Upper bounds in seconds, chosen around the 25 s job deadline.
    static let bucketBounds: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 30]

    struct Histogram {
        var counts = [Int](repeating: 0, count: JobMetrics.bucketBounds.count)
        var count = 0
        var sum = 0.0

        mutating func observe(milliseconds: Int) {
            let seconds = Double(milliseconds) / 1000
            count += 1
            sum += seconds
            for (index, bound) in JobMetrics.bucketBounds.enumerated() where seconds <= bound {
                counts[index] += 1
            }
        }
    }

    struct State {
        var jobs: [JobStatus: Int] = [:]
        var media: [MediaResult.Status: Int] = [:]
        var localFaults: [String: Int] = [:]
        var jobLatency = Histogram()
        var renderLatency = Histogram()
        var cachedLatency = Histogram()
    }

    private let state = Mutex(State())

    public init() {}

    public func record(_ result: JobResult) {
        state.withLock { state in
            state.jobs[result.status, default: 0] += 1
            state.jobLatency.observe(milliseconds: result.timings.totalMilliseconds)
            for media in result.media {
                state.media[media.status, default: 0] += 1
                if media.isLocalFault, let code = media.errorCode { state.localFaults[code, default: 0] += 1 }
                switch media.status {
                case .rendered: state.renderLatency.observe(milliseconds: media.milliseconds)
                case .cached: state.cachedLatency.observe(milliseconds: media.milliseconds)
                case .failed, .skipped: break
                }
            }
        }
    }

    /// The current values in the Prometheus text exposition format.
    public func prometheusText() -> String {
        let snapshot = state.withLock { $0 }
        var text = "# HELP richpush_jobs_total Jobs finished, by status.\n# TYPE richpush_jobs_total counter\n"
        for status in [JobStatus.enriched, .partial, .fallback, .passthrough, .rejected] {
            text += "richpush_jobs_total{status=\"\(status.rawValue)\"} \(snapshot.jobs[status] ?? 0)\n"
        }
        text += "# HELP richpush_media_total Media references, by outcome.\n# TYPE richpush_media_total counter\n"
        for status in [MediaResult.Status.rendered, .cached, .failed, .skipped] {
            text += "richpush_media_total{outcome=\"\(status.rawValue)\"} \(snapshot.media[status] ?? 0)\n"
        }
        text += "# HELP richpush_cache_hits_total Media served from the cache without a render.\n# TYPE richpush_cache_hits_total counter\n"
        text += "richpush_cache_hits_total \(snapshot.media[.cached] ?? 0)\n"
        text += "# HELP richpush_cache_misses_total Media fetched and rendered.\n# TYPE richpush_cache_misses_total counter\n"
        text += "richpush_cache_misses_total \(snapshot.media[.rendered] ?? 0)\n"
        text += "# HELP richpush_local_faults_total Media failed by a fault of this process, not of its origin, by code.\n"
        text += "# TYPE richpush_local_faults_total counter\n"
        for (code, count) in snapshot.localFaults.sorted(by: { $0.key < $1.key }) {
            text += "richpush_local_faults_total{code=\"\(code)\"} \(count)\n"
        }
        text += Self.histogramText("richpush_job_duration_seconds", "Time from job start to result.", snapshot.jobLatency)
        text += Self.histogramText("richpush_media_render_seconds", "Fetch, render and publish of one media item (cache miss).", snapshot.renderLatency)
        text += Self.histogramText("richpush_media_cached_seconds", "Lookup of one media item served from the cache.", snapshot.cachedLatency)
        return text
    }

    private static func histogramText(_ name: String, _ help: String, _ histogram: Histogram) -> String {
        var text = "# HELP \(name) \(help)\n# TYPE \(name) histogram\n"
        for (index, bound) in bucketBounds.enumerated() {
            text += "\(name)_bucket{le=\"\(bound)\"} \(histogram.counts[index])\n"
        }
        text += "\(name)_bucket{le=\"+Inf\"} \(histogram.count)\n"
        text += "\(name)_sum \(histogram.sum)\n\(name)_count \(histogram.count)\n"
        return text
    }
}
