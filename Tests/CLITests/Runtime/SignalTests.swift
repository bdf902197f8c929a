import Foundation
import XCTest
import TestSupport

final class SignalTests: XCTestCase {
    func testSigtermMidStreamLosesNoLineThatWasRead() throws {
        let cache = try makeTemporaryDirectory("signal")
        let process = CommandRunner.makeProcess(
            ["process", "--cache-dir", cache.path, "--concurrency", "4"], environment: [:], workingDirectory: nil)
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()

        func line(_ index: Int) -> Data {
            Data("{\"id\":\"j\(index)\",\"payload\":{\"aps\":{\"alert\":{\"title\":\"T\",\"body\":\"B\"}}}}\n".utf8)
        }
        let results = OutputLines(output.fileHandleForReading)
        for index in 1...50 { input.fileHandleForWriting.write(line(index)) }
        // Wait until the first results are out, so the stream is demonstrably mid-way.
        XCTAssertTrue(results.wait(forCount: 10, timeout: .seconds(60)), "the first ten results")
        kill(process.processIdentifier, SIGTERM)
        // stdin stays open: the command must not wait for end of input after a signal.
        let lines = try results.waitForEnd("the worker's standard output after SIGTERM")
        process.waitUntilExit()
        let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        try? input.fileHandleForWriting.close()

        XCTAssertEqual(process.terminationReason, .exit)
        XCTAssertEqual(process.terminationStatus, 0, log)
        XCTAssertGreaterThanOrEqual(lines.count, 10)
        XCTAssertLessThanOrEqual(lines.count, 50)
        for (index, text) in lines.enumerated() {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            XCTAssertEqual(object["line"] as? Int, index + 1, "results are consecutive from line 1: nothing read was lost")
            XCTAssertEqual(object["id"] as? String, "j\(index + 1)")
        }
        XCTAssertTrue(log.contains("\"stopped_by_signal\":true"), log)
    }

    /// Every SIGTERM is seen, whichever of the process's threads the kernel hands it to: a signal once set to
    /// ignored (for a dispatch source) was dropped when a thread that did not block it took it.
    func testEverySigtermStopsTheProcessWhileItsThreadsAreBusy() throws {
        let cache = try makeTemporaryDirectory("signal-busy")
        signal(SIGPIPE, SIG_IGN)   // the writer finds out that the child stopped from EPIPE, not by dying
        for round in 1...6 {
            let process = CommandRunner.makeProcess(
                ["process", "--cache-dir", cache.path, "--concurrency", "64"], environment: [:], workingDirectory: nil)
            let input = Pipe(), output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            let job = Data(String(repeating: "{\"payload\":{\"aps\":{\"alert\":\"x\"}}}\n", count: 2000).utf8)
            let writer = Thread { while (try? input.fileHandleForWriting.write(contentsOf: job)) != nil, process.isRunning {} }
            writer.start()
            _ = output.fileHandleForReading.availableData   // busy: results are coming out
            let drainer = Thread { _ = output.fileHandleForReading.readDataToEndOfFile() }
            drainer.start()
            kill(process.processIdentifier, SIGTERM)
            let deadline = Date().addingTimeInterval(15)
            while process.isRunning, Date() < deadline { usleep(10_000) }
            XCTAssertFalse(process.isRunning, "round \(round): SIGTERM was lost")
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            try? input.fileHandleForWriting.close()
            XCTAssertEqual(process.terminationReason, .exit, "round \(round)")
        }
    }
}
