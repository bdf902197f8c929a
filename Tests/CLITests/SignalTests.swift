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
        for index in 1...50 { input.fileHandleForWriting.write(line(index)) }
        // Wait until the first results are out, so the stream is demonstrably mid-way.
        var received = Data()
        while received.filter({ $0 == 0x0A }).count < 10 {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            received.append(chunk)
        }
        kill(process.processIdentifier, SIGTERM)
        // stdin stays open: the command must not wait for end of input after a signal.
        received.append(output.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        try? input.fileHandleForWriting.close()

        XCTAssertEqual(process.terminationReason, .exit)
        XCTAssertEqual(process.terminationStatus, 0, log)
        let lines = String(decoding: received, as: UTF8.self).split(separator: "\n")
        XCTAssertGreaterThanOrEqual(lines.count, 10)
        XCTAssertLessThanOrEqual(lines.count, 50)
        for (index, text) in lines.enumerated() {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            XCTAssertEqual(object["line"] as? Int, index + 1, "results are consecutive from line 1: nothing read was lost")
            XCTAssertEqual(object["id"] as? String, "j\(index + 1)")
        }
        XCTAssertTrue(log.contains("\"stopped_by_signal\":true"), log)
    }
}
