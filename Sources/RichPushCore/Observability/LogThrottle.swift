import Synchronization

/// Lets at most one log line per key through in each `interval`, and counts the ones it held back, so that a flood
/// (a client hammered with 401s, a saturated server answering 503s) stays visible in the log without filling it.
///
/// One short critical section per call; memory grows with the number of distinct keys, so keys must come from a
/// small fixed set (status codes, error codes).
package final class LogThrottle: Sendable {
    private struct Entry {
        var lastWritten: ContinuousClock.Instant
        var suppressed: Int
    }

    private let interval: Duration
    private let entries = Mutex([String: Entry]())

    package init(interval: Duration = .seconds(1)) {
        self.interval = interval
    }

    /// Whether to write the line for `key` at `now`: nil to drop it (and count it), else how many lines of that key
    /// were dropped since the last one written.
    package func admit(_ key: String, now: ContinuousClock.Instant = .now) -> Int? {
        entries.withLock { entries in
            if var entry = entries[key], now - entry.lastWritten < interval {
                entry.suppressed += 1
                entries[key] = entry
                return nil
            }
            let suppressed = entries[key]?.suppressed ?? 0
            entries[key] = Entry(lastWritten: now, suppressed: 0)
            return suppressed
        }
    }
}
