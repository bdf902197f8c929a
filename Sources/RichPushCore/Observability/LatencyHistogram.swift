/// A Prometheus histogram of durations: cumulative counts per upper bound, with the count and the sum.
///
/// A value type; owners keep it behind their own lock. `observe` costs one pass over the bounds.
package struct LatencyHistogram: Sendable, Hashable {
    /// Upper bounds in seconds, from 100 µs (a warm job takes less than a millisecond) to the 30 s the service
    /// extension allows.
    package static let defaultBounds: [Double] = [
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 30,
    ]

    package let bounds: [Double]
    package private(set) var counts: [Int]
    package private(set) var count = 0
    package private(set) var sum = 0.0

    package init(bounds: [Double] = LatencyHistogram.defaultBounds) {
        self.bounds = bounds
        counts = [Int](repeating: 0, count: bounds.count)
    }

    package mutating func observe(_ duration: Duration) {
        observe(seconds: duration.timeInterval)
    }

    package mutating func observe(seconds: Double) {
        count += 1
        sum += seconds
        for (index, bound) in bounds.enumerated() where seconds <= bound {
            counts[index] += 1
        }
    }

    /// The histogram in the Prometheus text exposition format, with its HELP and TYPE lines.
    package func prometheusText(name: String, help: String) -> String {
        "# HELP \(name) \(help)\n# TYPE \(name) histogram\n" + prometheusSamples(name: name)
    }

    /// The bucket, sum and count samples without HELP and TYPE, each carrying `labels` (`route="/v1/enrich"`, already
    /// escaped) before `le`: one of several histograms of a labelled family.
    package func prometheusSamples(name: String, labels: String = "") -> String {
        let prefix = labels.isEmpty ? "" : labels + ","
        let own = labels.isEmpty ? "" : "{\(labels)}"
        var text = ""
        for (index, bound) in bounds.enumerated() {
            text += "\(name)_bucket{\(prefix)le=\"\(bound)\"} \(counts[index])\n"
        }
        text += "\(name)_bucket{\(prefix)le=\"+Inf\"} \(count)\n"
        text += "\(name)_sum\(own) \(sum)\n\(name)_count\(own) \(count)\n"
        return text
    }
}
