import Foundation
import Synchronization
import RichPushCore
import RichPushHTTP
import RichPushPayload

/// Counters, a gauge and latency histograms over finished jobs, rendered in the Prometheus text format.
///
/// Recording is a short critical section per job; rendering copies the state once and reads the process's own
/// figures from `/proc` (`ProcessMetrics`). With a fetcher, the text also carries its bytes and fetch durations; with
/// included ``MetricsSource``s, their families (refreshed by ``refreshSources(final:)``, not by rendering).
package final class JobMetrics: Sendable {
    struct State {
        var jobs: [JobStatus: Int] = [:]
        var rejections: [String: Int] = [:]
        var media: [MediaResult.Status: Int] = [:]
        var failures: [String: Int] = [:]
        /// Renders (fetched and rendered or passed through) by variant name: the configured variants only.
        var renders: [String: Int] = [:]
        var localFaults: [String: Int] = [:]
        var publishedBytes = 0
        var documentsInFlight = 0
        var jobLatency = LatencyHistogram()
        var renderLatency = LatencyHistogram()
        var cachedLatency = LatencyHistogram()
    }

    private let state = Mutex(State())
    private let fetcher: Fetcher?
    private let sources = Mutex<[any MetricsSource]>([])

    /// - Parameter fetcher: the fetcher whose downloads to report (bytes, durations); nil leaves them out.
    package init(fetcher: Fetcher? = nil) {
        self.fetcher = fetcher
    }

    /// Appends `source`'s families to every render, after the job metrics (e.g. the consumer's, the cache's).
    package func include(_ source: any MetricsSource) {
        sources.withLock { $0.append(source) }
    }

    /// Refreshes every included source, one after the other; call before ``prometheusText()`` on the metrics tick.
    /// Costs what the sources' refreshes cost (each says).
    package func refreshSources(final: Bool = false) async {
        for source in sources.withLock({ $0 }) { await source.refresh(final: final) }
    }

    /// A document (an input line, a stream entry, a request) is being enriched; `documentFinished` must follow when
    /// its result line is built. ``DocumentProcessor`` calls both.
    package func documentStarted() {
        state.withLock { $0.documentsInFlight += 1 }
    }

    package func documentFinished() {
        state.withLock { $0.documentsInFlight -= 1 }
    }

    package func record(_ result: JobResult) {
        state.withLock { state in
            state.jobs[result.status, default: 0] += 1
            if let code = result.rejectionCode { state.rejections[code, default: 0] += 1 }
            state.jobLatency.observe(result.timings.total)
            for media in result.media {
                state.media[media.status, default: 0] += 1
                let seconds = Double(media.milliseconds) / 1000
                switch media.status {
                case .rendered, .passedThrough:
                    state.renders[media.variant, default: 0] += 1
                    state.renderLatency.observe(seconds: seconds)
                    state.publishedBytes += media.published?.bytes ?? 0
                case .cached: state.cachedLatency.observe(seconds: seconds)
                case .failed, .skipped:
                    let code = (media.errorCode ?? "unknown").rawValue
                    state.failures[code, default: 0] += 1
                    if media.isLocalFault { state.localFaults[code, default: 0] += 1 }
                }
            }
        }
    }

    /// A document rejected before it reached the enricher (e.g. a stream entry without a `job` field): counted as a
    /// rejected job with `code`.
    package func recordRejection(code: String) {
        state.withLock { state in
            state.jobs[.rejected, default: 0] += 1
            state.rejections[code, default: 0] += 1
        }
    }

    /// The current values in the Prometheus text exposition format.
    package func prometheusText() -> String {
        let snapshot = state.withLock { $0 }
        var text = "# HELP richpush_build_info The running version.\n# TYPE richpush_build_info gauge\n"
        text += "richpush_build_info{version=\"\(RichPushInfo.version)\"} 1\n"
        text += "# HELP richpush_jobs_in_flight Documents taken and not yet answered.\n# TYPE richpush_jobs_in_flight gauge\n"
        text += "richpush_jobs_in_flight \(snapshot.documentsInFlight)\n"
        text += "# HELP richpush_jobs_total Jobs finished, by status.\n# TYPE richpush_jobs_total counter\n"
        for status in [JobStatus.enriched, .partial, .fallback, .passthrough, .rejected] {
            text += "richpush_jobs_total{status=\"\(status.rawValue)\"} \(snapshot.jobs[status] ?? 0)\n"
        }
        text += Self.countersText("richpush_rejected_jobs_total", "Jobs rejected, by the code of their first error.", snapshot.rejections)
        text += "# HELP richpush_media_total Media references, by outcome.\n# TYPE richpush_media_total counter\n"
        for status in [MediaResult.Status.rendered, .passedThrough, .cached, .failed, .skipped] {
            text += "richpush_media_total{outcome=\"\(status.rawValue)\"} \(snapshot.media[status] ?? 0)\n"
        }
        text += Self.countersText(
            "richpush_renders_total", "Media fetched and rendered or passed through, by variant (attachment, story, big_picture, ...).",
            snapshot.renders, label: "variant")
        text += Self.countersText(
            "richpush_media_failures_total", "Media failed or skipped, by error code.", snapshot.failures)
        text += Self.countersText(
            "richpush_local_faults_total", "Media failed by a fault of this process, not of its origin, by code.",
            snapshot.localFaults)
        text += "# HELP richpush_cache_hits_total Media served from the cache without a render.\n# TYPE richpush_cache_hits_total counter\n"
        text += "richpush_cache_hits_total \(snapshot.media[.cached] ?? 0)\n"
        text += "# HELP richpush_cache_misses_total Media fetched and rendered or passed through.\n# TYPE richpush_cache_misses_total counter\n"
        text += "richpush_cache_misses_total \((snapshot.media[.rendered] ?? 0) + (snapshot.media[.passedThrough] ?? 0))\n"
        text += "# HELP richpush_published_bytes_total Bytes of rendered objects published to the cache.\n"
        text += "# TYPE richpush_published_bytes_total counter\nrichpush_published_bytes_total \(snapshot.publishedBytes)\n"
        text += snapshot.jobLatency.prometheusText(name: "richpush_job_duration_seconds", help: "Time from job start to result.")
        text += snapshot.renderLatency.prometheusText(
            name: "richpush_media_render_seconds", help: "Fetch, render and publish of one media item (cache miss).")
        text += snapshot.cachedLatency.prometheusText(
            name: "richpush_media_cached_seconds", help: "Lookup of one media item served from the cache.")
        if let fetcher {
            let fetched = fetcher.statistics.snapshot
            text += "# HELP richpush_fetched_bytes_total Body bytes of successful fetches.\n"
            text += "# TYPE richpush_fetched_bytes_total counter\nrichpush_fetched_bytes_total \(fetched.bytes)\n"
            text += fetched.durations.prometheusText(
                name: "richpush_fetch_duration_seconds", help: "One successful fetch, retries included.")
        }
        for source in sources.withLock({ $0 }) { text += source.prometheusText }
        text += ProcessMetrics.current().prometheusText
        return text
    }

    private static func countersText(_ name: String, _ help: String, _ counts: [String: Int], label: String = "code") -> String {
        var text = "# HELP \(name) \(help)\n# TYPE \(name) counter\n"
        for (value, count) in counts.sorted(by: { $0.key < $1.key }) {
            text += "\(name){\(label)=\"\(value)\"} \(count)\n"
        }
        return text
    }
}
