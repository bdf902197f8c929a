import Foundation
import XCTest
import TestSupport
import RichPush

final class ProcessCommandTests: XCTestCase {
    var temporaryDirectory: URL!
    let origin = "https://media.example.com/=" + packageRoot.appendingPathComponent("Fixtures/media").path

    override func setUpWithError() throws {
        temporaryDirectory = try makeTemporaryDirectory("cli")
    }

    override func tearDownWithError() throws {
    }

    private var cacheDirectory: String { temporaryDirectory.appendingPathComponent("cache").path }

    private func objects(_ output: CommandRunner.Output) throws -> [[String: Any]] {
        try output.lines.map { line in
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], line)
        }
    }

    func testVersionHelpAndUsageErrors() throws {
        let version = try CommandRunner.run(["--version"])
        XCTAssertEqual(version.status, 0)
        XCTAssertTrue(version.standardOutput.hasPrefix("richpush "))
        for command in ["process", "validate", "prewarm", "cache"] {
            let help = try CommandRunner.run([command, "--help"])
            XCTAssertEqual(help.status, 0, command)
            XCTAssertTrue(help.standardOutput.contains("Usage: richpush \(command)"), help.standardOutput)
        }
        XCTAssertEqual(try CommandRunner.run(["frobnicate"]).status, 2)
        let unknown = try CommandRunner.run(["process", "--no-such-flag"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.standardError.contains("--no-such-flag"))
        XCTAssertEqual(try CommandRunner.run(["process", "--concurrency", "zero"]).status, 2)
        XCTAssertEqual(try CommandRunner.run(["process", "--deadline"]).status, 2)
    }

    func testBundledSampleGivesTheExpectedStatuses() throws {
        let output = try CommandRunner.run([
            "process", "--local-origin", origin, "--cache-dir", cacheDirectory, "Fixtures/jobs/sample.ndjson",
        ])
        XCTAssertEqual(output.status, 0, output.standardError)
        let results = try objects(output)
        XCTAssertEqual(results.map { $0["id"] as? String }, ["story-autumn-1", "image-push-2", "broken-image-3", "silent-4"])
        XCTAssertEqual(results.map { $0["status"] as? String }, ["enriched", "enriched", "fallback", "passthrough"])
        let story = try XCTUnwrap((results[0]["apns"] as? [String: Any])?["payload"] as? [String: Any])
        XCTAssertEqual((story["aps"] as? [String: Any])?["category"] as? String, "PW_STORIES")
        for result in results {
            let token = (result["target"] as? [String: Any])?["token"] as? String
            XCTAssertEqual(token?.count, 64, "every sample result carries its device token")
            let headers = (result["apns"] as? [String: Any])?["headers"] as? [String: Any]
            XCTAssertEqual(headers?["apns-topic"] as? String, "com.example.shop")
        }
        let logLines = output.standardError.split(separator: "\n")
        XCTAssertTrue(logLines.contains { $0.contains("\"event\":\"summary\"") }, output.standardError)
        XCTAssertFalse(output.standardError.contains("?"), "logs carry no URL query strings")
    }

    /// Issue 28: the metrics carry the cache's size as gauges, and they grow when a job renders into it. Issue 37:
    /// the process's resolutions and directory reads are metrics too, each cold key one resolution and two reads.
    func testMetricsFileCarriesCacheGaugesThatGrowAfterRendering() throws {
        let metricsPath = temporaryDirectory.appendingPathComponent("metrics.prom").path
        func gauge(_ name: String, _ text: String) -> Int? {
            text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Int($0.split(separator: " ")[1]) }
        }
        let empty = try CommandRunner.run(
            ["process", "--cache-dir", cacheDirectory, "--metrics-file", metricsPath, "-"], input: "")
        XCTAssertEqual(empty.status, 0, empty.standardError)
        let before = try String(contentsOfFile: metricsPath, encoding: .utf8)
        XCTAssertTrue(before.contains("# TYPE richpush_cache_bytes gauge\n"), before)
        XCTAssertEqual(gauge("richpush_cache_objects", before), 0, before)
        XCTAssertEqual(gauge("richpush_cache_bytes", before), 0, before)
        XCTAssertEqual(gauge("richpush_cache_resolutions_total", before), 0, before)
        XCTAssertEqual(gauge("richpush_cache_resolution_waiters", before), 0, before)

        let rendered = try CommandRunner.run([
            "process", "--local-origin", origin, "--cache-dir", cacheDirectory, "--metrics-file", metricsPath,
            "Fixtures/jobs/sample.ndjson",
        ])
        XCTAssertEqual(rendered.status, 0, rendered.standardError)
        let after = try String(contentsOfFile: metricsPath, encoding: .utf8)
        XCTAssertGreaterThan(gauge("richpush_cache_objects", after) ?? 0, 0, after)
        XCTAssertGreaterThan(gauge("richpush_cache_bytes", after) ?? 0, 1000, after)
        let resolutions = try XCTUnwrap(gauge("richpush_cache_resolutions_total", after), after)
        XCTAssertGreaterThan(resolutions, 0, after)
        XCTAssertEqual(gauge("richpush_cache_resolution_waiters", after), 0, "nothing waits once the run ended")
        let objectReads = try XCTUnwrap(gauge(#"richpush_cache_reads_total{entry="object"}"#, after), after)
        XCTAssertGreaterThanOrEqual(objectReads, 2 * resolutions, "one read before the lock and one under it: \(after)")
        XCTAssertNotNil(gauge(#"richpush_cache_reads_total{entry="negative"}"#, after), after)
    }

    /// Issue 39 item 3: `--result` chooses what each line carries; id, line, status, target and timings always come.
    func testResultPartsChooseWhatEachLineCarries() throws {
        let documents = [
            #"{"id":"one","payload":{"aps":{"alert":"x"},"image_url":"https://media.example.com/hero.jpg"}}"#,
            #"{"request":{"auth":"T","notifications":[{"content":"a"},{"content":"b"}]}}"#,
        ]
        func keys(_ extra: [String]) throws -> [[String]] {
            let output = try CommandRunner.run(["process", "--local-origin", origin, "--cache-dir", cacheDirectory] + extra,
                                               input: documents.joined(separator: "\n") + "\n")
            XCTAssertEqual(output.status, 0, output.standardError)
            return try objects(output).map { object in
                object.keys.sorted() + ((object["jobs"] as? [[String: Any]])?.first?.keys.map { "jobs." + $0 }.sorted() ?? [])
            }
        }
        let always = ["id", "line", "status", "target", "timings"]
        XCTAssertEqual(try keys([])[0], (always + ["apns", "diagnostics", "media", "request"]).sorted())
        let requestOnly = try keys(["--result", "request"])
        XCTAssertEqual(requestOnly[0], (always + ["request"]).sorted())
        XCTAssertEqual(requestOnly[1], ["jobs", "line", "request", "status"] + always.map { "jobs." + $0 }.sorted())
        let devices = try keys(["--result", "apns,media"])
        XCTAssertEqual(devices[0], (always + ["apns", "media"]).sorted())
        XCTAssertFalse(devices[1].contains("request"), "\(devices[1])")
        XCTAssertEqual(try keys(["--result", "all"]), try keys([]))
        let refused = try CommandRunner.run(["process", "--result", "request,tokens"], input: "")
        XCTAssertEqual(refused.status, 2)
        XCTAssertTrue(refused.standardError.contains("--result"), refused.standardError)
    }

    /// `--quality-target 80`: each rendered JPEG reports its SSIMULACRA2 score in `media[]`, at or above the target;
    /// the default target does too, and `off` is the fixed quality, without a score; a score outside 0...100 is a
    /// usage mistake.
    func testRenderedMediaReportTheirScoreAgainstTheQualityTarget() throws {
        // The search takes the best so far when the deadline leaves no time for another step, as it must; a debug
        // build on a loaded machine scores slowly, so the deadline here is long enough never to cut the search.
        func media(_ extra: [String]) throws -> [[String: Any]] {
            let output = try CommandRunner.run(["process", "--local-origin", origin, "--cache-dir", cacheDirectory + extra.joined(),
                                                "--allow-long-deadline", "--deadline", "300s"]
                + extra + ["Fixtures/jobs/sample.ndjson"])
            XCTAssertEqual(output.status, 0, output.standardError)
            return try objects(output).flatMap { ($0["media"] as? [[String: Any]]) ?? [] }.filter { $0["format"] as? String == "jpeg" }
        }
        let searched = try media(["--quality-target", "80"])
        XCTAssertFalse(searched.isEmpty)
        for item in searched { XCTAssertGreaterThanOrEqual(try XCTUnwrap(item["score"] as? Double, "\(item)"), 80) }
        // A cache hit reports the score kept in the object's sidecar.
        let cached = try media(["--quality-target", "80"])
        XCTAssertEqual(cached.map { $0["status"] as? String }, searched.map { _ in "cached" })
        XCTAssertEqual(cached.map { $0["score"] as? Double }, searched.map { $0["score"] as? Double })
        let high = try media(["--quality-target", "85"])
        for item in high { XCTAssertGreaterThanOrEqual(try XCTUnwrap(item["score"] as? Double, "\(item)"), 85) }
        XCTAssertGreaterThan(high.compactMap { $0["bytes"] as? Int }.reduce(0, +), searched.compactMap { $0["bytes"] as? Int }.reduce(0, +))
        for item in try media(["--quality-target", "off"]) { XCTAssertNil(item["score"], "\(item)") }
        // By default every JPEG is searched for the default target, in fewer bytes than for a higher one.
        let byDefault = try media([])
        XCTAssertEqual(byDefault.count, searched.count)
        for item in byDefault {
            XCTAssertGreaterThanOrEqual(try XCTUnwrap(item["score"] as? Double, "\(item)"), ImageVariant.defaultQualityTarget)
        }
        XCTAssertLessThan(byDefault.compactMap { $0["bytes"] as? Int }.reduce(0, +), searched.compactMap { $0["bytes"] as? Int }.reduce(0, +))
        XCTAssertEqual(try CommandRunner.run(["process", "--quality-target", "101"]).status, 2)
        XCTAssertEqual(try CommandRunner.run(["process", "--quality-target", "good"]).status, 2)
    }

    func testLogIsStartUpSummaryAndProblemsAtInfoAndJobsAtDebug() throws {
        func events(_ level: String) throws -> [[String: Any]] {
            let output = try CommandRunner.run([
                "process", "--local-origin", origin, "--cache-dir", cacheDirectory, "--log-level", level,
                "Fixtures/jobs/sample.ndjson",
            ])
            XCTAssertEqual(output.status, 0, output.standardError)
            return try output.standardError.split(separator: "\n").map { line in
                try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
            }
        }
        let info = try events("info")
        XCTAssertEqual(info.first?["event"] as? String, "start")
        XCTAssertEqual(info.first?["command"] as? String, "process")
        XCTAssertNotNil(info.first?["version"] as? String)
        XCTAssertEqual(info.first?["deadline_ms"] as? Int, 25_000)
        XCTAssertEqual(info.last?["event"] as? String, "summary")
        XCTAssertFalse(info.contains { $0["event"] as? String == "job" }, "\(info)")
        for event in info {
            let time = try XCTUnwrap(event["time"] as? String)
            XCTAssertNotNil(time.range(of: #"T\d{2}:\d{2}:\d{2}\.\d{3}Z$"#, options: .regularExpression), "milliseconds: \(time)")
        }
        let debug = try events("debug")
        XCTAssertEqual(debug.filter { $0["event"] as? String == "job" }.count, 4)
    }

    func testThousandLinesWithMalformedOnesGiveThousandOrderedOutputs() throws {
        var input = ""
        for index in 1...1000 {
            switch index % 7 {
            case 0: input += "{\"broken\": \n"
            case 3: input += "\n"
            default: input += "{\"id\":\"j\(index)\",\"aps\":{\"alert\":{\"title\":\"T\",\"body\":\"B\"}}}\n"
            }
        }
        // Concurrency 1 gives a read-ahead of two lines, so the reader pauses and resumes on almost every line.
        for concurrency in ["64", "1"] {
            let output = try CommandRunner.run(
                ["process", "--cache-dir", cacheDirectory, "--concurrency", concurrency], input: input)
            XCTAssertEqual(output.status, 0, output.standardError)
            let results = try objects(output)
            XCTAssertEqual(results.count, 1000)
            for (index, result) in results.enumerated() {
                XCTAssertEqual(result["line"] as? Int, index + 1)
                let expected = (index + 1) % 7 == 0 || (index + 1) % 7 == 3 ? "rejected" : "passthrough"
                XCTAssertEqual(result["status"] as? String, expected, "line \(index + 1)")
            }
        }
    }

    func testPrewarmThenProcessMakesNoFurtherRenders() throws {
        let prewarm = try CommandRunner.run([
            "prewarm", "--local-origin", origin, "--cache-dir", cacheDirectory, "Fixtures/jobs/sample.ndjson",
        ])
        // The sample's broken image fails on purpose.
        XCTAssertEqual(prewarm.status, 1, prewarm.standardError)
        XCTAssertTrue(prewarm.standardError.contains(#""rendered":4"#), prewarm.standardError)
        XCTAssertTrue(prewarm.standardError.contains(#""failed":1"#), prewarm.standardError)
        let allowed = try CommandRunner.run([
            "prewarm", "--allow-failures", "--local-origin", origin, "--cache-dir", cacheDirectory, "Fixtures/jobs/sample.ndjson",
        ])
        XCTAssertEqual(allowed.status, 0)
        XCTAssertTrue(allowed.standardError.contains(#""fresh":4"#), allowed.standardError)

        let output = try CommandRunner.run([
            "process", "--local-origin", origin, "--cache-dir", cacheDirectory, "Fixtures/jobs/sample.ndjson",
        ])
        let media = try objects(output).flatMap { ($0["media"] as? [[String: Any]]) ?? [] }
        XCTAssertEqual(media.count, 5)
        let statuses = media.map { $0["status"] as? String }
        XCTAssertEqual(statuses.filter { $0 == "cached" }.count, 4, "\(statuses)")
        XCTAssertEqual(statuses.filter { $0 == "rendered" }.count, 0, "\(statuses)")
    }

    func testFlagsOverrideEnvironmentWhichOverridesConfigFile() throws {
        let config = temporaryDirectory.appendingPathComponent("config.json")
        try Data(#"{"deadline": "nonsense"}"#.utf8).write(to: config)
        // The configuration file's bad value is reported...
        XCTAssertEqual(try CommandRunner.run(["process", "--config", config.path], input: "").status, 2)
        // ...unless the environment overrides it...
        XCTAssertEqual(try CommandRunner.run(
            ["process", "--config", config.path, "--cache-dir", cacheDirectory], input: "",
            environment: ["RICHPUSH_DEADLINE": "5s"]).status, 0)
        // ...and a flag overrides the environment.
        XCTAssertEqual(try CommandRunner.run(
            ["process", "--config", config.path, "--deadline", "bogus", "--cache-dir", cacheDirectory], input: "",
            environment: ["RICHPUSH_DEADLINE": "5s"]).status, 2)
        XCTAssertEqual(try CommandRunner.run(
            ["process", "--config", config.path, "--deadline", "2s", "--cache-dir", cacheDirectory], input: "",
            environment: ["RICHPUSH_DEADLINE": "bogus"]).status, 0)
    }

    /// A reader that goes away (SIGPIPE ignored, as a supervisor may leave it) ends `process` with status 74 and
    /// one message, not a crash: no later line could be delivered either.
    func testStandardOutputClosedByItsReaderEndsWithAnIOError() throws {
        let input = temporaryDirectory.appendingPathComponent("jobs.ndjson")
        let line = #"{"token":"0a","payload":{"aps":{"alert":{"title":"T","body":"B"}}}}"# + "\n"
        try Data(String(repeating: line, count: 3_000).utf8).write(to: input)
        let errors = temporaryDirectory.appendingPathComponent("stderr.txt")
        let process = CommandRunner.makeProcess([], environment: [:], workingDirectory: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // `true` exits without reading: once the pipe's buffer is full or its reader gone, each write fails.
        process.arguments = ["bash", "-c", #"trap "" PIPE; "$0" process --cache-dir "$1" "$2" 2>"$3" | true; echo "${PIPESTATUS[0]}""#,
                             CommandRunner.executable.path, cacheDirectory, input.path, errors.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let status = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(status.trimmingCharacters(in: .whitespacesAndNewlines), "74")
        let message = try String(contentsOf: errors, encoding: .utf8)
        XCTAssertTrue(message.contains("standard output refused a result line (Broken pipe)"), message)
    }
}
