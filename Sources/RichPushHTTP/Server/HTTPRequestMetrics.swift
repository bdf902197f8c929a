import Synchronization
import RichPushCore

/// Requests answered by route and status, and their durations by route, in the Prometheus text format.
///
/// The caller names the route: a path from a fixed set, so a client cannot add label values by inventing paths.
/// Recording is one short critical section; rendering copies the state once.
package final class HTTPRequestMetrics: Sendable {
    private struct Key: Hashable, Comparable {
        var route: String
        var status: Int

        static func < (left: Key, right: Key) -> Bool { (left.route, left.status) < (right.route, right.status) }
    }

    private struct State {
        var requests: [Key: Int] = [:]
        var durations: [String: LatencyHistogram] = [:]
    }

    private let state = Mutex(State())

    package init() {}

    package func record(route: String, status: Int, duration: Duration) {
        state.withLock { state in
            state.requests[Key(route: route, status: status), default: 0] += 1
            state.durations[route, default: LatencyHistogram()].observe(duration)
        }
    }

    /// How many requests on `route` were answered with `status`.
    package func count(route: String, status: Int) -> Int {
        state.withLock { $0.requests[Key(route: route, status: status)] ?? 0 }
    }

    /// `richpush_http_requests_total{route,code}` and `richpush_http_request_duration_seconds{route}`.
    package func prometheusText() -> String {
        let snapshot = state.withLock { $0 }
        var text = "# HELP richpush_http_requests_total HTTP requests answered, by route and status code.\n"
        text += "# TYPE richpush_http_requests_total counter\n"
        for (key, count) in snapshot.requests.sorted(by: { $0.key < $1.key }) {
            text += "richpush_http_requests_total{route=\"\(key.route)\",code=\"\(key.status)\"} \(count)\n"
        }
        let name = "richpush_http_request_duration_seconds"
        text += "# HELP \(name) From a request's headers to the last byte of its answer, by route.\n# TYPE \(name) histogram\n"
        for (route, histogram) in snapshot.durations.sorted(by: { $0.key < $1.key }) {
            text += histogram.prometheusSamples(name: name, labels: "route=\"\(route)\"")
        }
        return text
    }
}
