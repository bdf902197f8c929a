import Foundation
import RichPush

/// Rewrites a Prometheus text file every interval (atomically, so a scraper never reads half a file).
struct MetricsFileWriter: Sendable {
    let path: String
    let metrics: JobMetrics

    /// Refreshes the metrics' sources (a Redis round trip, a throttled cache scan), then writes the file.
    func write(final: Bool = false) async {
        await metrics.refreshSources(final: final)
        let temporary = path + ".tmp"
        do {
            try Data(metrics.prometheusText().utf8).write(to: URL(fileURLWithPath: temporary))
            _ = rename(temporary, path)
        } catch {
            Logger.error("metrics_file", "cannot write metrics to \(path): \(error.localizedDescription)")
        }
    }

    /// Writes every `interval` until the task is cancelled, then once more.
    func run(every interval: Duration = .seconds(10)) async {
        while !Task.isCancelled {
            await write()
            try? await Task.sleep(for: interval)
        }
        await write(final: true)
    }
}
