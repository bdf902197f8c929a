import Foundation
import RichPushCore
#if canImport(Glibc)
import Glibc
#endif

/// The standard `process_*` families (as Prometheus client libraries export them) read from Linux's `/proc`: CPU
/// time, resident memory, open descriptors and start time. Each render reads three small `/proc` files and lists
/// `/proc/self/fd`; a family whose file cannot be read is left out rather than reported as zero.
package struct ProcessMetrics: Sendable {
    package var cpuSeconds: Double?
    package var residentMemoryBytes: Int?
    package var openFileDescriptors: Int?
    package var startTimeSeconds: Double?

    /// The current values of this process.
    package static func current() -> ProcessMetrics {
        var metrics = ProcessMetrics()
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        // /proc/self/stat: "pid (comm) state ppid ..."; comm may hold spaces and parentheses, so fields are counted
        // after the last ')'. Field 3 (state) is index 0 there: utime 14, stime 15, starttime 22, rss 24 (pages).
        if let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
           let close = stat.lastIndex(of: ")") {
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            func field(_ number: Int) -> Double? { fields.count > number - 3 ? Double(fields[number - 3]) : nil }
            if let user = field(14), let system = field(15) { metrics.cpuSeconds = (user + system) / ticksPerSecond }
            if let pages = field(24) { metrics.residentMemoryBytes = Int(pages) * Int(sysconf(Int32(_SC_PAGESIZE))) }
            if let startTicks = field(22), let bootTime = Self.bootTime() {
                metrics.startTimeSeconds = bootTime + startTicks / ticksPerSecond
            }
        }
        if let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            // Listing the folder opens one descriptor of its own, which the listing includes.
            metrics.openFileDescriptors = max(0, descriptors.count - 1)
        }
        return metrics
    }

    /// The `btime` line of /proc/stat: boot time in seconds since the epoch.
    private static func bootTime() -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return nil }
        let line = stat.split(separator: "\n").first { $0.hasPrefix("btime ") }
        return line.flatMap { Double($0.dropFirst("btime ".count)) }
    }

    /// The families in the Prometheus text format.
    package var prometheusText: String {
        var text = ""
        func family(_ name: String, _ type: String, _ help: String, _ value: String?) {
            guard let value else { return }
            text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n\(name) \(value)\n"
        }
        family("process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.",
               cpuSeconds.map { $0.decimalString(fractionDigits: 2) })
        family("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", residentMemoryBytes.map(String.init))
        family("process_open_fds", "gauge", "Number of open file descriptors.", openFileDescriptors.map(String.init))
        family("process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.",
               startTimeSeconds.map { $0.decimalString(fractionDigits: 2) })
        return text
    }
}
