import Foundation
import TestSupport
import XCTest

/// `richpush consume` end to end: a real redis-server on a loopback port, the real binary, SIGTERM at the end.
final class ConsumeCommandTests: XCTestCase {
    private var server: Process?
    private var port = 0
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory.make("consume")
        port = Int(try LoopbackPort.free())
        try startServer()
    }

    /// Starts redis-server on `port` (again, after `stopServer`, as a restart without persistence) and waits for it.
    private func startServer() throws {
        // Never skipped: a machine without redis-server fails loudly, naming scripts/test.
        let redisServer = try TestTool.redisServer.path()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: redisServer)
        process.arguments = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--dir", directory.path]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        server = process
        for _ in 0..<500 { if (try? redis(["PING"]))?.contains("PONG") == true { break }; usleep(10_000) }
        XCTAssertEqual(try redis(["PING"]).trimmingCharacters(in: .whitespacesAndNewlines), "PONG")
    }

    private func stopServer() {
        server?.terminate()
        server?.waitUntilExit()
        server = nil
    }

    override func tearDownWithError() throws {
        stopServer()
        // After redis-server is gone, so it cannot write into its --dir while it is removed.
        TemporaryDirectory.remove(directory)
    }

    @discardableResult
    private func redis(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try TestTool.redisCLI.path())
        process.arguments = ["-p", String(port), "--raw"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// Starts `consume` on this test's Redis server and cache, reading stream `jobs`, with `arguments` after the
    /// shared ones; its log goes to the returned pipe.
    private func startConsumer(_ arguments: [String]) throws -> (process: Process, log: Pipe) {
        let consumer = CommandRunner.makeProcess([
            "consume", "--redis", "redis://127.0.0.1:\(port)/0", "--stream", "jobs",
            "--cache-dir", directory.appendingPathComponent("cache").path, "--public-base-url", "https://cdn.example.com/richpush",
        ] + arguments, environment: [:], workingDirectory: nil)
        let log = Pipe()
        consumer.standardError = log
        consumer.standardOutput = FileHandle.nullDevice
        try consumer.run()
        return (consumer, log)
    }

    /// The number of entries in `stream` (0 when it does not exist).
    private func length(of stream: String) throws -> Int {
        Int(try redis(["XLEN", stream]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// Polls `condition` every 10 ms until it holds or `seconds` have passed; the caller checks what it waited for.
    private func wait(upTo seconds: TimeInterval, for condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while try !condition() && Date() < deadline { usleep(10_000) }
    }

    func testConsumerWritesOneResultPerJobAndStopsCleanlyOnSigterm() throws {
        let jobCount = 40
        for index in 1...jobCount {
            let body = index == 11 ? String(repeating: "x", count: 300) : "B"   // over --max-line-bytes 200
            let job = index == 7
                ? "{not json"
                : #"{"id":"c\#(index)","token":"tok\#(index)","topic":"com.example.app","payload":{"aps":{"alert":{"title":"T","body":"\#(body)"}}}}"#
            try redis(["XADD", "jobs", "*", "job", job])
        }
        let (consumer, errors) = try startConsumer(["--results-stream", "results", "--concurrency", "8", "--max-line-bytes", "200"])

        var count = 0
        try wait(upTo: 10) {
            count = try length(of: "results")
            return count >= jobCount
        }
        kill(consumer.processIdentifier, SIGTERM)
        consumer.waitUntilExit()
        let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)

        XCTAssertEqual(consumer.terminationStatus, 0, log)
        XCTAssertEqual(count, jobCount, log)
        let results = try redis(["XRANGE", "results", "-", "+"]).split(separator: "\n").filter { $0.hasPrefix("{") }
        var statuses: [String: String] = [:]
        var rejected = 0
        var rejectedCodes: [String] = []
        for line in results {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            if let id = object["id"] as? String {
                XCTAssertNil(statuses[id], "one result per job id")
                statuses[id] = object["status"] as? String
                // A queue consumer can send what it gets: the token and the topic are in the result.
                XCTAssertEqual((object["target"] as? [String: Any])?["token"] as? String, "tok" + id.dropFirst())
                let headers = (object["apns"] as? [String: Any])?["headers"] as? [String: Any]
                XCTAssertEqual(headers?["apns-topic"] as? String, "com.example.app")
                // And the envelope itself comes back, ready to hand on.
                XCTAssertEqual((object["request"] as? [String: Any])?["token"] as? String, "tok" + id.dropFirst())
            } else {
                XCTAssertEqual(object["status"] as? String, "rejected")
                rejected += 1
                let diagnostics = object["diagnostics"] as? [[String: Any]]
                rejectedCodes.append(diagnostics?.first?["code"] as? String ?? "")
            }
        }
        XCTAssertEqual(statuses.count, jobCount - 2)
        XCTAssertEqual(Set(statuses.values), ["passthrough"])
        XCTAssertEqual(rejected, 2, "the malformed and the oversized entry get rejected results, not a crash loop")
        XCTAssertEqual(Set(rejectedCodes), ["invalid_json", "line_too_long"])
        // Each rejected entry is logged with its stream entry id and its code.
        let rejectedLines = log.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["event"] as? String == "job" && $0["status"] as? String == "rejected" }
        XCTAssertEqual(Set(rejectedLines.compactMap { $0["code"] as? String }), ["invalid_json", "line_too_long"], log)
        XCTAssertTrue(rejectedLines.allSatisfy { ($0["entry_id"] as? String)?.contains("-") == true }, log)
        XCTAssertTrue(try redis(["XPENDING", "jobs", "richpush"]).hasPrefix("0"), "every job is acked")
    }

    /// Issue 26: `consume` writes each of the six shapes' own request back to the results stream.
    func testEverySenderShapeComesBackThroughConsume() throws {
        for (_, document, _) in SenderRequestCommandTests.shapes { try redis(["XADD", "jobs", "*", "job", document]) }
        let (consumer, _) = try startConsumer([
            "--results-stream", "results",
            "--local-origin", "https://media.example.com/=" + packageRoot.appendingPathComponent("Fixtures/media").path,
        ])
        let shapes = SenderRequestCommandTests.shapes
        try wait(upTo: 20) { try length(of: "results") >= shapes.count }
        kill(consumer.processIdentifier, SIGTERM)
        consumer.waitUntilExit()
        let results = try redis(["XRANGE", "results", "-", "+"]).split(separator: "\n").filter { $0.hasPrefix("{") }
        XCTAssertEqual(results.count, shapes.count)
        // Results arrive in completion order: each shape's request is found by its own media field.
        let requests = results.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["request"]
        }
        for (name, _, pointer) in shapes {
            XCTAssertTrue(requests.contains { request in
                (SenderRequestCommandTests.value(at: pointer, in: request) as? String)?.hasPrefix("https://cdn.example.com/richpush/objects/") == true
            }, "\(name): \(results)")
        }
    }

    func testConsumerEventsReachTheLogAndMetricsFile() throws {
        let metricsPath = directory.appendingPathComponent("metrics.prom").path
        let (consumer, errors) = try startConsumer(["--metrics-file", metricsPath])
        let job = #"{"id":"g1","payload":{"aps":{"alert":{"title":"T","body":"B"}}}}"#
        try redis(["XADD", "jobs", "*", "job", job])
        try wait(upTo: 10) { try length(of: "richpush:results") >= 1 }
        // The server "loses" the stream and its group, as after a restart without persistence: the consumer
        // recreates the group, and says so in its log.
        try redis(["DEL", "jobs"])
        try redis(["XADD", "jobs", "*", "job", job.replacingOccurrences(of: "g1", with: "g2")])
        try wait(upTo: 10) { try length(of: "richpush:results") >= 2 }
        // An entry without a job field never reaches the pipeline, but it is logged and counted like a rejected job.
        let jobless = try redis(["XADD", "jobs", "*", "other", "x"]).trimmingCharacters(in: .whitespacesAndNewlines)
        try wait(upTo: 10) { try length(of: "richpush:results") >= 3 }
        kill(consumer.processIdentifier, SIGTERM)
        consumer.waitUntilExit()
        let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(consumer.terminationStatus, 0, log)
        let events = log.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        XCTAssertEqual(events.first?["event"] as? String, "start", log)
        XCTAssertEqual(events.first?["command"] as? String, "consume")
        XCTAssertTrue(events.contains { $0["event"] as? String == "group_recreated" && $0["level"] as? String == "warning" }, log)
        let jobLines = events.filter { $0["event"] as? String == "job" }
        XCTAssertEqual(jobLines.count, 1, "per-job lines are debug, not info; a rejected job is a warning: \(log)")
        XCTAssertEqual(jobLines.first?["entry_id"] as? String, jobless, log)
        XCTAssertEqual(jobLines.first?["code"] as? String, "missing_job_field", log)
        XCTAssertEqual(jobLines.first?["level"] as? String, "warning", log)
        let metrics = try String(contentsOfFile: metricsPath, encoding: .utf8)
        XCTAssertTrue(metrics.contains("richpush_jobs_total{status=\"passthrough\"} 2") || metrics.contains("richpush_jobs_total{status=\"enriched\"} 2"), metrics)
        XCTAssertTrue(metrics.contains("richpush_jobs_total{status=\"rejected\"} 1"), metrics)
        XCTAssertTrue(metrics.contains("richpush_rejected_jobs_total{code=\"missing_job_field\"} 1"), metrics)
    }

    /// Issue 28: the consumer's claims, dead letters and reconnects, and its group's pending entries and lag, are in
    /// the metrics file while it runs, not only in its exit summary.
    func testConsumerCountersAndBacklogReachTheMetricsFileWhileRunning() throws {
        let metricsPath = directory.appendingPathComponent("metrics.prom").path
        let (consumer, errors) = try startConsumer(["--metrics-file", metricsPath])
        defer { if consumer.isRunning { kill(consumer.processIdentifier, SIGKILL) } }
        // Started: the group exists.
        try wait(upTo: 30) { try redis(["XINFO", "GROUPS", "jobs"]).contains("richpush") }

        // A restart without persistence: both connections break, and the consumer reconnects and recreates its group.
        stopServer()
        try startServer()
        let job = #"{"id":"m1","payload":{"aps":{"alert":{"title":"T","body":"B"}}}}"#
        let first = try redis(["XADD", "jobs", "*", "job", job]).trimmingCharacters(in: .whitespacesAndNewlines)
        let second = try redis(["XADD", "jobs", "*", "job", job]).trimmingCharacters(in: .whitespacesAndNewlines)
        try wait(upTo: 30) { try length(of: "richpush:results") >= 2 }
        // Two entries pending on another consumer (claimed long before the 60 s claim-idle runs out).
        try redis(["XCLAIM", "jobs", "richpush", "other", "0", first, second, "FORCE"])
        XCTAssertTrue(try redis(["XPENDING", "jobs", "richpush"]).hasPrefix("2\n"))

        // The file is rewritten every 10 s while the consumer runs: wait for a write after the restart.
        var metrics = ""
        try wait(upTo: 30) {
            metrics = (try? String(contentsOfFile: metricsPath, encoding: .utf8)) ?? ""
            return metrics.contains("richpush_consumer_pending_entries 2\n")
        }
        XCTAssertTrue(consumer.isRunning)
        XCTAssertTrue(metrics.contains("richpush_consumer_pending_entries 2\n"), metrics)
        XCTAssertTrue(metrics.contains("richpush_consumer_lag_entries 0\n"), "all entries delivered: \(metrics)")
        XCTAssertTrue(metrics.contains("# TYPE richpush_consumer_claims_total counter\nrichpush_consumer_claims_total 0\n"), metrics)
        XCTAssertTrue(metrics.contains("richpush_consumer_dead_letters_total 0\n"), metrics)
        let reconnects = metrics.split(separator: "\n").first { $0.hasPrefix("richpush_consumer_reconnects_total ") }
        XCTAssertGreaterThanOrEqual(reconnects.flatMap { Int($0.split(separator: " ")[1]) } ?? 0, 1, metrics)

        kill(consumer.processIdentifier, SIGTERM)
        consumer.waitUntilExit()
        let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(consumer.terminationStatus, 0, log)
    }
}
