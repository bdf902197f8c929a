import Foundation
import RichPush

/// What `serve` does with each answered request: counts it by route and status (with its duration), and logs a
/// refusal at a bounded rate, so a flood of 401s or 503s shows in the log as one line a second per status with the
/// number held back, instead of nothing or a line per request.
struct ServeRequestObserver: Sendable {
    let metrics: HTTPRequestMetrics
    let logger: Logger
    private let throttle = LogThrottle(interval: .seconds(1))

    /// The statuses that mean the request was turned away before or instead of being served.
    static let refusals: Set<Int> = [401, 408, 413, 415, 429, 503]

    init(metrics: HTTPRequestMetrics, logger: Logger) {
        self.metrics = metrics
        self.logger = logger
    }

    func observe(_ outcome: HTTPRequestOutcome) {
        let route = ServeRoutes.routes.contains(outcome.path) ? outcome.path : "other"
        metrics.record(route: route, status: outcome.status, duration: outcome.duration)
        guard Self.refusals.contains(outcome.status), let suppressed = throttle.admit(String(outcome.status)) else { return }
        logger.log(.warning, "request_refused", [
            ("route", .string(route)), ("status", .number(String(outcome.status))),
            ("suppressed", .number(String(suppressed))),
        ])
    }
}
