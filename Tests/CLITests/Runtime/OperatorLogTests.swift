import Foundation
import TestSupport
import XCTest

/// The log an operator reads: every line JSON, `--log-level` honoured for every line, rejected jobs named by id or
/// line with their code, and debug job lines with each media item's code.
final class OperatorLogTests: XCTestCase {
    private let origin = "https://media.example.com/=" + packageRoot.appendingPathComponent("Fixtures/media").path

    private func events(_ output: CommandRunner.Output, file: StaticString = #filePath, line: UInt = #line) -> [[String: Any]] {
        let lines = output.standardError.split(separator: "\n")
        let parsed = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        XCTAssertEqual(parsed.count, lines.count, "every line is JSON: \(output.standardError)", file: file, line: line)
        return parsed
    }

    private func process(_ arguments: [String], input: String) throws -> CommandRunner.Output {
        let cache = try makeTemporaryDirectory("oplog").appendingPathComponent("cache").path
        return try CommandRunner.run(
            ["process", "--cache-dir", cache, "--public-base-url", "https://media-cdn.test/rp", "--local-origin", origin] + arguments,
            input: input)
    }

    func testLogLevelErrorLeavesOnlyErrors() throws {
        let jobs = #"{"id":"a","payload":{"aps":{"alert":"hi"}}}"# + "\n{not json\n"
        let quiet = try process(["--log-level", "error"], input: jobs)
        XCTAssertEqual(quiet.status, 0, quiet.standardError)
        XCTAssertEqual(quiet.lines.count, 2, "results are output, not log")
        XCTAssertEqual(quiet.standardError, "", "no start, summary or rejected-job line at error level")
        let prewarm = try CommandRunner.run(
            ["prewarm", "--log-level", "error", "--local-origin", origin, "--public-base-url", "https://media-cdn.test/rp",
             "--cache-dir", try makeTemporaryDirectory("oplog").path, "Fixtures/jobs/sample.ndjson"])
        XCTAssertEqual(prewarm.status, 1, "the sample's broken image fails")
        XCTAssertEqual(prewarm.standardError, "", "prewarm's summary and failures are info and warning lines")

        let normal = events(try process([], input: jobs))
        XCTAssertEqual(normal.first?["event"] as? String, "start")
        XCTAssertEqual(normal.last?["event"] as? String, "summary")
    }

    func testARejectedJobIsLoggedWithItsIdOrLineAndCode() throws {
        // A line that is not JSON, and a job with an id whose payload cannot be made to fit.
        let jobs = "{not json\n" + #"{"id":"r1","payload":{"aps":{"alert":"hi"},"big":""# + String(repeating: "x", count: 5000) + "\"}}\n"
        let output = try process([], input: jobs)
        let rejected = events(output).filter { $0["event"] as? String == "job" }
        XCTAssertEqual(rejected.count, 2, output.standardError)
        // Jobs run concurrently and are logged as they finish, so the lines are found by their line number, not order.
        let byLine = rejected.first { $0["line"] as? Int == 1 }
        XCTAssertEqual(byLine?["code"] as? String, "invalid_json", output.standardError)
        XCTAssertEqual(byLine?["level"] as? String, "warning")
        let byID = rejected.first { $0["id"] as? String == "r1" }
        XCTAssertEqual(byID?["code"] as? String, "payload_too_large", output.standardError)
        XCTAssertEqual(byID?["line"] as? Int, 2)
    }

    func testDebugJobLinesCarryEachMediaItemsCode() throws {
        let job = #"{"id":"m1","payload":{"aps":{"alert":"hi","mutable-content":1},"image_url":"https://media.example.com/broken.jpg"}}"#
        let output = try process(["--log-level", "debug"], input: job + "\n")
        let line = events(output).first { $0["event"] as? String == "job" && $0["id"] as? String == "m1" }
        let media = try XCTUnwrap(line?["media"] as? [[String: Any]], output.standardError)
        XCTAssertEqual(media.count, 1)
        XCTAssertEqual(media.first?["status"] as? String, "failed")
        XCTAssertEqual(media.first?["code"] as? String, "unsupported_format", output.standardError)
    }

    func testAFatalErrorIsAJSONLogLine() throws {
        let output = try CommandRunner.run(["cache", "stats", "--cache-dir", try makeTemporaryDirectory("oplog").appendingPathComponent("absent").path])
        XCTAssertEqual(output.status, 3)
        let fatal = events(output).first
        XCTAssertEqual(fatal?["event"] as? String, "fatal", output.standardError)
        XCTAssertEqual(fatal?["level"] as? String, "error")
        XCTAssertTrue((fatal?["message"] as? String)?.contains("no cache at") == true, output.standardError)
    }
}
