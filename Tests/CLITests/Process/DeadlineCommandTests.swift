import Foundation
import TestSupport
import XCTest

/// The CLI binary against a stalled origin: every job still gets its line by the deadline.
final class DeadlineCommandTests: XCTestCase {
    func testStalledOriginStillReturnsEveryJobByTheDeadline() throws {
        let origin = try LoopbackOrigin.shared()
        let cache = try makeTemporaryDirectory("deadline")
        var input = ""
        for index in 0..<6 {
            let url = origin.url("/stall/cli-\(index)")
            input += #"{"id":"s\#(index)","payload":{"aps":{"alert":{"title":"T","body":"B"}},"image_url":"\#(url)"}}"# + "\n"
        }
        let started = ContinuousClock.now
        let output = try CommandRunner.run([
            "process", "--deadline", "1s", "--allow-network", "127.0.0.1/32", "--cache-dir", cache.path,
        ], input: input)
        let elapsed = ContinuousClock.now - started
        XCTAssertEqual(output.status, 0, output.standardError)
        XCTAssertEqual(output.lines.count, 6)
        XCTAssertLessThan(elapsed, .seconds(3), "process start-up plus one 1 s deadline, not 6")
        for line in output.lines {
            let result = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            XCTAssertEqual(result["status"] as? String, "fallback")
            let total = try XCTUnwrap((result["timings"] as? [String: Any])?["total_ms"] as? Int)
            // At its deadline, not at the stall's end; a second of margin for a loaded machine (was 400 ms).
            XCTAssertLessThanOrEqual(total, 2_000, "job finished \(total - 1000) ms after its deadline")
            let media = (result["media"] as? [[String: Any]])?.first
            XCTAssertEqual((media?["error"] as? [String: Any])?["code"] as? String, "deadline_exceeded")
        }
    }
}
