import Foundation
import Glibc
import RichPush
import TestSupport

/// `richpush-bench consume`: `richpush consume` (consumers on one Redis Stream), over plain TCP and over TLS, beside
/// `richpush process` on the same jobs, in the same run.
///
/// The jobs are image pushes over the bundled images, served from Fixtures/media through a local origin and
/// prewarmed first, so every side measures the queue and the pipeline on a warm cache, not image work. Reports jobs/s
/// of each, their ratios, Redis round trips per job from the consumers' summaries, and redis-server's CPU time per
/// job: the single-instance figure (one Redis core carries about 1 / that many jobs a second). Starts its own
/// redis-server, with a plain port (loading and counting) and a TLS port under a CA made for the run; needs
/// `redis-server`, `redis-cli` and `openssl`, and the release `richpush` binary next to this one.
enum ConsumeBenchmark {
    struct Options {
        var jobs = 20_000
        var consumers = 2
        var concurrency = 64
    }

    static func run(_ arguments: [String]) async -> Int32 {
        var options = Options()
        guard let values = IntegerArguments.parse(arguments, known: ["--jobs", "--consumers", "--concurrency"]) else {
            FileHandle.standardError.write(Data("usage: richpush-bench consume [--jobs N] [--consumers N] [--concurrency N]\n".utf8))
            return 2
        }
        options.jobs = max(1, values["--jobs"] ?? options.jobs)
        options.consumers = max(1, values["--consumers"] ?? options.consumers)
        options.concurrency = max(1, values["--concurrency"] ?? options.concurrency)
        do {
            try measure(options)
            return 0
        } catch {
            print("richpush-bench consume: \(error)")
            return 1
        }
    }

    private static func measure(_ options: Options) throws {
        let binary = try BenchmarkFailure.siblingRichpush()
        let work = try TemporaryDirectory.make("consume-bench")
        defer { TemporaryDirectory.remove(work) }

        let authority = try TestCertificateAuthority()
        let certificate = try authority.issue(commonName: "localhost", alternativeNames: ["IP:127.0.0.1"])
        let port = try LoopbackPort.free()
        let tlsPort = try LoopbackPort.free()
        let redis = try launch(
            "redis-server",
            ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", work.path]
                + authority.redisServerArguments(tlsPort: Int(tlsPort), certificate: certificate))
        defer {
            // A throwaway server with nothing to save: no need for its shutdown sequence.
            kill(redis.processIdentifier, SIGKILL)
            redis.waitUntilExit()
        }
        try LoopbackPort.waitUntilListening(on: port)
        try LoopbackPort.waitUntilListening(on: tlsPort)

        let images = ["hero.jpg", "story1.jpg", "story2.jpg", "story3.jpg"]
        let media = URL(fileURLWithPath: "Fixtures/media").standardizedFileURL.path
        let common = [
            "--cache-dir", work.appendingPathComponent("cache").path, "--concurrency", String(options.concurrency),
            "--log-level", "warning", "--local-origin", "https://media.example.com/=\(media)",
        ]
        let jobs = (0..<options.jobs).map { index in
            #"{"id":"q\#(index)","payload":{"aps":{"alert":{"title":"T","body":"B"}},"image_url":"https://media.example.com/\#(images[index % images.count])"}}"#
        }
        let jobsFile = work.appendingPathComponent("jobs.ndjson")
        try (jobs.joined(separator: "\n") + "\n").write(to: jobsFile, atomically: true, encoding: .utf8)
        try wait(try launch(binary, ["prewarm", "--allow-failures"] + common + [jobsFile.path], quiet: true))

        // process: the same jobs split between the same number of processes.
        var parts: [String] = []
        for part in 0..<options.consumers {
            let path = work.appendingPathComponent("part\(part).ndjson")
            let share = stride(from: part, to: jobs.count, by: options.consumers).map { jobs[$0] }
            try (share.joined(separator: "\n") + "\n").write(to: path, atomically: true, encoding: .utf8)
            parts.append(path.path)
        }
        let started = ContinuousClock.now
        let processes = try parts.map { try launch(binary, ["process"] + common + [$0], quiet: true) }
        for process in processes { try wait(process) }
        let processRate = Double(options.jobs) / seconds(since: started)

        let run = ConsumeRun(binary: binary, work: work, redis: redis, plainPort: port, jobs: jobs, options: options, common: common)
        let plain = try run.measure(name: "plain", url: "redis://127.0.0.1:\(port)/0", tlsOptions: [])
        let tls = try run.measure(
            name: "tls", url: "rediss://127.0.0.1:\(tlsPort)/0", tlsOptions: ["--redis-tls-ca-file", authority.certificatePath])

        print("| jobs | consumers | process jobs/s | consume jobs/s | consume over TLS jobs/s | TLS / plain | consume / process | Redis round trips per job |")
        print("|---|---|---|---|---|---|---|---|")
        print(String(
            format: "| %d | %d | %.0f | %.0f | %.0f | %.2f | %.2f | %.2f |", options.jobs, options.consumers, processRate,
            plain.rate, tls.rate, tls.rate / plain.rate, plain.rate / processRate, plain.roundTripsPerJob))
        // On a small machine redis-server shares the cores with the consumers; process runs have no such neighbour.
        for (name, result) in [("plain", plain), ("TLS", tls)] {
            print(String(
                format: "%@: redis-server used %.2f CPU s of the %.2f s run (%.0f%% of one core): %.1f µs per job, so one Redis core carries about %.0f jobs/s",
                name, result.redisCPU, result.seconds, result.redisCPU / result.seconds * 100,
                result.redisCPU / Double(options.jobs) * 1e6, Double(options.jobs) / result.redisCPU))
        }
    }

    /// One timed drain of the jobs by `consumers` `richpush consume` processes, on a stream of its own.
    private struct ConsumeRun {
        let binary: String
        let work: URL
        let redis: Process
        let plainPort: UInt16
        let jobs: [String]
        let options: Options
        let common: [String]

        struct Result {
            var rate: Double
            var seconds: Double
            var redisCPU: Double
            var roundTripsPerJob: Double
        }

        func measure(name: String, url: String, tlsOptions: [String]) throws -> Result {
            let stream = "jobs-\(name)"
            let results = "results-\(name)"
            // Load the stream first (redis-cli --pipe speaks raw RESP), then time the consumers draining it.
            var pipeInput = Data()
            for job in jobs {
                let length = job.utf8.count
                pipeInput.append(Data("*5\r\n$4\r\nXADD\r\n$\(stream.utf8.count)\r\n\(stream)\r\n$1\r\n*\r\n$3\r\njob\r\n$\(length)\r\n\(job)\r\n".utf8))
            }
            try ConsumeBenchmark.wait(try ConsumeBenchmark.launch("redis-cli", ["-p", String(plainPort), "--pipe"], input: pipeInput, quiet: true))
            let redisCPUBefore = ConsumeBenchmark.cpuSeconds(of: redis.processIdentifier)
            let started = ContinuousClock.now
            var consumers: [(Process, URL)] = []
            for consumer in 0..<options.consumers {
                let log = work.appendingPathComponent("consumer-\(name)\(consumer).log")
                let arguments = [
                    "consume", "--redis", url, "--stream", stream, "--results-stream", results,
                    "--consumer", "c\(consumer)", "--public-base-url", "https://cdn.example.com/richpush",
                ] + tlsOptions + common.filter { $0 != "warning" && $0 != "--log-level" }
                // info: the summary line (round trips) is info; job lines are debug, so none is written per job.
                consumers.append((try ConsumeBenchmark.launch(binary, arguments + ["--log-level", "info"], errorLog: log), log))
            }
            let counter = try ResultCounter(port: plainPort, stream: results)
            while try counter.count() < options.jobs {
                usleep(5_000)
            }
            let elapsed = ConsumeBenchmark.seconds(since: started)
            let redisCPU = ConsumeBenchmark.cpuSeconds(of: redis.processIdentifier) - redisCPUBefore
            var roundTrips = 0.0
            for (process, log) in consumers {
                process.terminate()
                process.waitUntilExit()
                for line in (try String(contentsOf: log, encoding: .utf8)).split(separator: "\n") where line.contains("\"summary\"") {
                    if let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                        let trips = object["round_trips"] as? Double
                    {
                        roundTrips += trips
                    }
                }
            }
            return Result(
                rate: Double(options.jobs) / elapsed, seconds: elapsed, redisCPU: redisCPU,
                roundTripsPerJob: roundTrips / Double(options.jobs))
        }
    }

    /// `XLEN <results>` over one plain socket (RESP inline command), so polling costs the consumers' two cores
    /// almost nothing; spawning `redis-cli` every few milliseconds did.
    private final class ResultCounter {
        private let descriptor: Int32
        private let stream: String

        init(port: UInt16, stream: String) throws {
            self.stream = stream
            guard let descriptor = LoopbackPort.connect(to: port) else {
                throw BenchmarkFailure.failed("cannot connect to redis on port \(port)")
            }
            self.descriptor = descriptor
        }

        deinit { close(descriptor) }

        func count() throws -> Int {
            let command = Array("XLEN \(stream)\r\n".utf8)
            guard send(descriptor, command, command.count, 0) == command.count else { throw BenchmarkFailure.failed("send failed") }
            var reply: [UInt8] = []
            var byte: UInt8 = 0
            while reply.last != 0x0A {
                guard recv(descriptor, &byte, 1, 0) == 1 else { throw BenchmarkFailure.failed("redis closed the connection") }
                reply.append(byte)
            }
            // ":<n>\r\n"
            return Int(String(decoding: reply.dropFirst().dropLast(2), as: UTF8.self)) ?? 0
        }
    }

    private static func launch(
        _ executable: String, _ arguments: [String], input: Data? = nil, output: Pipe? = nil, errorLog: URL? = nil,
        quiet: Bool = false
    ) throws -> Process {
        let process = Process()
        if executable.contains("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        process.standardOutput = output ?? FileHandle.nullDevice
        if let errorLog {
            _ = FileManager.default.createFile(atPath: errorLog.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: errorLog)
        } else if quiet {
            process.standardError = FileHandle.nullDevice
        }
        let inputPipe = input.map { _ in Pipe() }
        if let inputPipe { process.standardInput = inputPipe }
        try process.run()
        if let input, let inputPipe {
            inputPipe.fileHandleForWriting.write(input)
            try inputPipe.fileHandleForWriting.close()
        }
        return process
    }

    private static func wait(_ process: Process) throws {
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkFailure.failed("\(process.arguments?.first ?? "child") exited with \(process.terminationStatus)")
        }
    }

    /// User plus system CPU seconds of a process, from /proc (Linux).
    private static func cpuSeconds(of pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        // Fields after the command name: state is field 3, utime 14 and stime 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
