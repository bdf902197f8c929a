import Synchronization
import RichPushCore

/// A consumer's counters and its group's backlog as Prometheus families: claims, dead letters and reconnects
/// (counters), pending entries and lag (gauges).
///
/// Each ``refresh(final:)`` reads the consumer's live counters (no I/O) and asks Redis for the backlog (one round
/// trip on the writer connection, see ``RedisStreamConsumer/backlog()``). When that fails (Redis down, group not
/// there) the gauges are left out until the next refresh rather than shown stale. `lag` is left out too when Redis
/// does not report it (before 7.0, or when it cannot tell).
package final class ConsumerMetrics: MetricsSource {
    private let consumer: RedisStreamConsumer
    private let snapshot = Mutex<(summary: ConsumerSummary, backlog: StreamBacklog?)?>(nil)

    package init(consumer: RedisStreamConsumer) {
        self.consumer = consumer
    }

    package func refresh(final: Bool) async {
        let summary = await consumer.currentSummary()
        let backlog = try? await consumer.backlog()
        snapshot.withLock { $0 = (summary, backlog) }
    }

    package var prometheusText: String {
        guard let (summary, backlog) = snapshot.withLock({ $0 }) else { return "" }
        var text = ""
        func family(_ name: String, _ type: String, _ help: String, _ value: Int) {
            text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n\(name) \(value)\n"
        }
        family("richpush_consumer_claims_total", "counter", "Entries claimed from other or earlier consumers.", summary.claimed)
        family("richpush_consumer_dead_letters_total", "counter", "Entries moved to the dead-letter stream.", summary.deadLettered)
        family("richpush_consumer_reconnects_total", "counter", "Redis connections re-established after a break.", summary.reconnects)
        if let backlog {
            family("richpush_consumer_pending_entries", "gauge",
                   "Entries delivered to the group's consumers and not acknowledged (XPENDING).", backlog.pending)
            if let lag = backlog.lag {
                family("richpush_consumer_lag_entries", "gauge",
                       "Entries in the stream not yet delivered to the group (XINFO GROUPS lag).", lag)
            }
        }
        return text
    }
}
