import Foundation
import XCTest
import TestSupport

/// `--max-line-bytes`: a line longer than the limit gets one `line_too_long` result and is skipped unbuffered, so
/// a 64 MB line neither costs 64 MB of memory nor disturbs the lines around it.
final class LineLimitTests: XCTestCase {
    private let silentJob = #"{"id":"before","payload":{"aps":{"content-available":1}}}"#

    /// The peak resident set of a running process, from /proc (VmHWM), in megabytes.
    private func peakResidentMegabytes(of process: Process) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        let kilobytes = try XCTUnwrap(Int(line.split(separator: " ")[1]))
        return kilobytes / 1024
    }

    func testHugeLineIsRejectedUnreadAndItsNeighboursAreProcessed() throws {
        let directory = try makeTemporaryDirectory("lines")
        let process = CommandRunner.makeProcess(
            ["process", "--cache-dir", directory.path, "--log-level", "error"], environment: [:], workingDirectory: nil)
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let lines = OutputLines(output.fileHandleForReading)

        let writer = input.fileHandleForWriting
        writer.write(Data((silentJob + "\n").utf8))
        // 64 MB without a newline, a little JSON at the start so it is clearly a document.
        let block = Data(repeating: 0x61, count: 1 << 20)
        writer.write(Data(#"{"id":"huge","payload":{"aps":{"alert":""#.utf8))
        for _ in 0..<64 { writer.write(block) }
        writer.write(Data(#""}}}"#.utf8 + [0x0A]))
        writer.write(Data((silentJob.replacingOccurrences(of: "before", with: "after") + "\r\n").utf8))

        XCTAssertTrue(lines.wait(forCount: 3, timeout: .seconds(60)), "three results while standard input is still open")
        XCTAssertEqual(lines.all.count, 3, "three lines in, three results out while standard input is still open")
        // Measured while the worker is still running, so the figure is this process's own peak.
        let peak = try peakResidentMegabytes(of: process)
        XCTAssertLessThan(peak, 64, "the 64 MB line must not be buffered (peak \(peak) MB)")
        try writer.close()
        process.waitUntilExit()
        let resultLines = try lines.waitForEnd("the worker's standard output")
        XCTAssertEqual(process.terminationStatus, 0)

        let results = try resultLines.map { line in
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        XCTAssertEqual(results.count, 3)
        XCTAssertEqual(results.map { $0["status"] as? String }, ["passthrough", "rejected", "passthrough"])
        XCTAssertEqual(results.map { $0["line"] as? Int }, [1, 2, 3])
        XCTAssertEqual(results[0]["id"] as? String, "before")
        XCTAssertEqual(results[2]["id"] as? String, "after")
        let diagnostics = try XCTUnwrap(results[1]["diagnostics"] as? [[String: Any]])
        XCTAssertEqual(diagnostics.first?["code"] as? String, "line_too_long")
        XCTAssertTrue((diagnostics.first?["message"] as? String)?.contains("--max-line-bytes") == true)
    }

    func testTheLimitIsAnOptionAndALineAtTheLimitIsAccepted() throws {
        let directory = try makeTemporaryDirectory("lines")
        let exact = silentJob
        let longer = #"{"id":"longer","payload":{"aps":{"content-available":1}}} "#
        let output = try CommandRunner.run(
            ["process", "--cache-dir", directory.path, "--max-line-bytes", "\(exact.utf8.count)"],
            input: exact + "\n" + longer + "\n" + exact)
        XCTAssertEqual(output.status, 0, output.standardError)
        let statuses = output.lines.map { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["status"] as? String
        }
        XCTAssertEqual(statuses, ["passthrough", "rejected", "passthrough"], "a last line without a newline still counts")

        let zero = try CommandRunner.run(["process", "--max-line-bytes", "0"], input: "")
        XCTAssertEqual(zero.status, 2)
        XCTAssertTrue(zero.standardError.contains("max-line-bytes"), zero.standardError)
    }
}
