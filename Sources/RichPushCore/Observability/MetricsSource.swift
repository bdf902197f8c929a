/// A part of a metrics page kept by another layer (the queue consumer's counters, the cache's size), appended to the
/// job metrics. The page calls ``refresh()`` on its tick, before it renders, so I/O happens there; rendering reads only
/// what the last refresh kept.
package protocol MetricsSource: Sendable {
    /// Brings the values up to date; may do I/O (a Redis round trip, a cache scan). `final` is the last render
    /// before the process exits, which should show the end state even when a throttle would skip it.
    func refresh(final: Bool) async
    /// The families in the Prometheus text format, from the last refresh; empty before the first.
    var prometheusText: String { get }
}
