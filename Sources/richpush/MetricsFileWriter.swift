import Foundation
import RichPush

/// Rewrites a Prometheus text file every interval (atomically, so a scraper never reads half a file).
struct MetricsFileWriter: Sendable {
    let path: String
    let metrics: JobMetrics

    func write() {
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
            write()
            try? await Task.sleep(for: interval)
        }
        write()
    }
}
