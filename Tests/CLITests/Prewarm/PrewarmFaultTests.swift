import Foundation
import TestSupport
import XCTest

/// `prewarm --urls` against the origin's fault modes: each failure is listed with its code, within the deadline, and
/// nothing reaches a denied address.
final class PrewarmFaultTests: XCTestCase {
    func testEveryFaultIsReportedWithItsCode() throws {
        // An origin of its own: the shared one's per-path counters belong to the HTTP tests in this process.
        let origin = try LoopbackOrigin()
        defer { origin.stop() }
        let cache = try makeTemporaryDirectory("prewarm")
        let denied = origin.url("/bytes/9/100", onSecondary: true).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let faults: [(path: String, code: String)] = [
            ("/stall/prewarm", "deadline_exceeded"),
            ("/status/404", "http_status"),
            ("/truncated", "connection"),
            ("/loop", "too_many_redirects"),
            ("/to?location=\(denied)", "blocked_address"),
            ("/wrongtype", "corrupt_image"),
            ("/huge-length", "too_large"),
        ]
        let list = cache.appendingPathExtension("urls")
        try Data(faults.map { origin.url($0.path) }.joined(separator: "\n").utf8).write(to: list)
        let secondaryBefore = origin.totalCount(onSecondary: true)
        let started = ContinuousClock.now
        let output = try CommandRunner.run([
            "prewarm", "--urls", "--deadline", "3s", "--allow-network", "127.0.0.1/32", "--cache-dir", cache.path, list.path,
        ])
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(8), "all items run concurrently under one 3 s deadline")
        XCTAssertEqual(output.status, 1, "failures make prewarm exit 1")
        // The report is the JSON log: an item_failed line per failure with its code, then the summary.
        let events = output.standardError.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        XCTAssertEqual(events.count, output.standardError.split(separator: "\n").count, "every line is JSON: \(output.standardError)")
        let summary = events.last { $0["event"] as? String == "summary" }
        XCTAssertEqual(summary?["failed"] as? Int, faults.count, output.standardError)
        XCTAssertEqual(summary?["items"] as? Int, faults.count, output.standardError)
        let failed = events.filter { $0["event"] as? String == "item_failed" }
        for fault in faults {
            let line = failed.first { ($0["source"] as? String)?.contains(fault.path.split(separator: "?")[0]) == true }
            XCTAssertEqual(line?["code"] as? String, fault.code, "\(fault.path): \(output.standardError)")
            XCTAssertEqual(line?["level"] as? String, "warning")
        }
        XCTAssertEqual(origin.totalCount(onSecondary: true), secondaryBefore, "no request reached 127.0.0.2")
        try? FileManager.default.removeItem(at: list)
    }
}
