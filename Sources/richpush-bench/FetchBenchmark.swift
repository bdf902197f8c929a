import Foundation
import Glibc
import RichPush
import TestSupport

/// `richpush-bench fetch`: RichPush's Fetcher against `curl --parallel` on the same nginx origin and URL list.
enum FetchBenchmark {
    struct Options {
        var count = 10_000
        var concurrency = 64
        var fileBytes = 100 * 1024
        var distinctFiles = 200
        var rounds = 3
    }

    struct Measurement {
        var seconds: Double
        var cpuSeconds: Double
        var failures: Int
        func report(_ name: String, count: Int) -> String {
            let rate = Double(count) / seconds
            let cpu = cpuSeconds / Double(count) * 1000
            return "\(name.padding(toLength: 22, withPad: " ", startingAt: 0)) \(String(format: "%8.0f", rate)) fetches/s  "
                + "\(String(format: "%6.3f", cpu)) CPU s/1000 fetches  wall \(String(format: "%.2f", seconds)) s  failures \(failures)"
        }
    }

    static func run(_ arguments: [String]) async -> Int32 {
        var options = Options()
        guard let values = IntegerArguments.parse(
            arguments, known: ["--count", "--concurrency", "--file-bytes", "--rounds"])
        else {
            FileHandle.standardError.write(Data("usage: richpush-bench fetch [--count N] [--concurrency N] [--file-bytes N] [--rounds N]\n".utf8))
            return 2
        }
        options.count = values["--count"] ?? options.count
        options.concurrency = values["--concurrency"] ?? options.concurrency
        options.fileBytes = values["--file-bytes"] ?? options.fileBytes
        options.rounds = max(1, values["--rounds"] ?? options.rounds)
        do {
            return try await benchmark(options)
        } catch {
            print("fetch benchmark failed: \(error)")
            return 1
        }
    }

    private static func benchmark(_ options: Options) async throws -> Int32 {
        let workspace = try TemporaryDirectory.make("fetch-bench")
        defer { TemporaryDirectory.remove(workspace) }
        let root = workspace.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        // Incompressible content from a cheap xorshift generator (per-byte system randomness costs seconds).
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for file in 0..<options.distinctFiles {
            var bytes = [UInt8](repeating: 0, count: options.fileBytes)
            for index in bytes.indices {
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                bytes[index] = UInt8(truncatingIfNeeded: state)
            }
            try Data(bytes).write(to: root.appendingPathComponent("f\(file).bin"))
        }

        let port = try LoopbackPort.free()
        let nginx = try startNginx(workspace: workspace, root: root, port: port)
        defer { stop(nginx) }
        try LoopbackPort.waitUntilListening(on: port)

        let urls = (0..<options.count).map { "http://127.0.0.1:\(port)/f\($0 % options.distinctFiles).bin" }
        print("fetch benchmark: \(options.count) fetches of \(options.fileBytes) bytes at concurrency \(options.concurrency), nginx on 127.0.0.1:\(port)")

        let fetcher = try Fetcher(configuration: FetchConfiguration(
            allowNetworks: [try IPNetwork("127.0.0.1/32")], maximumConnectionsPerHost: options.concurrency))
        _ = await fetchAll(Array(urls.prefix(options.concurrency * 4)), with: fetcher, options: options)  // warm-up

        // The machine may be shared: alternate the two clients over several rounds and keep each one's median.
        var curlRounds: [Measurement] = []
        var richPushRounds: [Measurement] = []
        for _ in 0..<options.rounds {
            curlRounds.append(try runCurl(urls: urls, options: options, workspace: workspace))
            richPushRounds.append(await fetchAll(urls, with: fetcher, options: options))
        }
        fetcher.shutdown()
        let curl = median(curlRounds), richPush = median(richPushRounds)

        print(curl.report("curl --parallel", count: options.count))
        print(richPush.report("RichPush Fetcher", count: options.count))
        print("throughput ratio (RichPush / curl): \(String(format: "%.2f", curl.seconds / richPush.seconds))x"
              + " (median of \(options.rounds) alternating rounds)")
        return richPush.failures == 0 && curl.failures == 0 ? 0 : 1
    }

    private static func median(_ rounds: [Measurement]) -> Measurement {
        let sorted = rounds.sorted { $0.seconds < $1.seconds }
        var middle = sorted[sorted.count / 2]
        middle.failures = rounds.map(\.failures).reduce(0, +)
        return middle
    }

    private static func fetchAll(_ urls: [String], with fetcher: Fetcher, options: Options) async -> Measurement {
        let cpuBefore = cpuSeconds(RUSAGE_SELF.rawValue)
        let started = ContinuousClock.now
        var failures = 0
        await withBoundedConcurrency(over: urls, width: options.concurrency) { url in
            let media = try? await fetcher.fetch(FetchRequest(url: url, deadline: .now + .seconds(30)))
            return media?.body.count == options.fileBytes
        } onEach: { _, succeeded in
            if !succeeded { failures += 1 }
            return true
        }
        let elapsed = ContinuousClock.now - started
        return Measurement(seconds: seconds(elapsed), cpuSeconds: cpuSeconds(RUSAGE_SELF.rawValue) - cpuBefore, failures: failures)
    }

    private static func runCurl(urls: [String], options: Options, workspace: URL) throws -> Measurement {
        let list = workspace.appendingPathComponent("curl.config")
        var config = ""
        for url in urls { config += "url = \"\(url)\"\noutput = \"/dev/null\"\n" }
        try config.write(to: list, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["--parallel", "--parallel-max", "\(options.concurrency)", "--silent", "--no-progress-meter", "--fail",
                             "--write-out", "%{http_code} %{size_download}\n", "-K", list.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        let cpuBefore = cpuSeconds(RUSAGE_CHILDREN.rawValue)
        let started = ContinuousClock.now
        try process.run()
        let report = output.fileHandleForReading.readDataToEndOfFile()
        while process.isRunning { usleep(1_000) }
        let elapsed = ContinuousClock.now - started
        let good = String(decoding: report, as: UTF8.self).split(separator: "\n").filter { $0 == "200 \(options.fileBytes)" }.count
        return Measurement(seconds: seconds(elapsed), cpuSeconds: cpuSeconds(RUSAGE_CHILDREN.rawValue) - cpuBefore,
                           failures: urls.count - good)
    }

    private static func startNginx(workspace: URL, root: URL, port: UInt16) throws -> Process {
        _ = try NginxConfiguration.write(in: workspace, main: "master_process on; worker_processes 1; user root;",
                                         events: "worker_connections 4096;", http: """
            access_log off;
            sendfile on;
            tcp_nopush on;
            keepalive_requests 1000000;
            keepalive_timeout 60s;
            types { application/octet-stream bin; }
            server {
                listen 127.0.0.1:\(port);
                root \(root.path);
            }
            """)
        return try NginxConfiguration.start(in: workspace)
    }

    /// Polls rather than `waitUntilExit`, which spins a run loop when called from async code.
    private static func stop(_ process: Process) {
        process.terminate()
        let deadline = ContinuousClock.now + .seconds(5)
        while process.isRunning, ContinuousClock.now < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    private static func cpuSeconds(_ who: Int32) -> Double {
        var usage = rusage()
        getrusage(who, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1_000_000
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
