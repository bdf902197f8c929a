import Foundation
import XCTest
import TestSupport

/// `richpush cache stats | gc | verify` on a cache filled by `process`.
final class CacheCommandTests: XCTestCase {
    private func json(_ output: CommandRunner.Output) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [String: Any], output.standardOutput)
    }

    func testStatsVerifyRepairAndRetentionAwareGC() throws {
        let cache = try makeTemporaryDirectory("cachecmd")
        let origin = "https://media.example.com/=" + packageRoot.appendingPathComponent("Fixtures/media").path
        let process = try CommandRunner.run(["process", "--local-origin", origin, "--cache-dir", cache.path, "Fixtures/jobs/sample.ndjson"])
        XCTAssertEqual(process.status, 0, process.standardError)

        let stats = try json(try CommandRunner.run(["cache", "stats", "--format", "json", "--cache-dir", cache.path]))
        XCTAssertEqual(stats["object_count"] as? Int, 4)
        XCTAssertEqual(stats["negative_entry_count"] as? Int, 1, "the broken image is remembered")

        XCTAssertEqual(try CommandRunner.run(["cache", "verify", "--cache-dir", cache.path]).status, 0)
        // Tamper with one object: verify finds it, repair quarantines it, and the cache is clean again.
        let objects = FileManager.default.enumerator(at: cache.appendingPathComponent("objects"), includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "jpg" } ?? []
        let victim = try XCTUnwrap(objects.first)
        var bytes = try Data(contentsOf: victim)
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: victim)
        XCTAssertEqual(try CommandRunner.run(["cache", "verify", "--cache-dir", cache.path]).status, 1)
        XCTAssertEqual(try CommandRunner.run(["cache", "verify", "--repair", "--cache-dir", cache.path]).status, 1)
        XCTAssertEqual(try CommandRunner.run(["cache", "verify", "--cache-dir", cache.path]).status, 0)

        // Every remaining object is retained for the jobs that used it (30 days): gc evicts none, says why first,
        // and fails, since the budget was not met.
        let gcRun = try CommandRunner.run(["cache", "gc", "--max-bytes", "1", "--format", "json", "--cache-dir", cache.path])
        XCTAssertEqual(gcRun.status, 1, "an unmet budget is a failure")
        let gc = try json(gcRun)
        XCTAssertEqual(gc["evicted_objects"] as? Int, 0)
        XCTAssertEqual(gc["budget_met"] as? Bool, false)
        let kept = try XCTUnwrap(gc["not_evicted"] as? [[String: Any]])
        XCTAssertEqual(kept.count, 3)
        XCTAssertEqual(Set(kept.compactMap { $0["reason"] as? String }), ["retained"])
        XCTAssertTrue(gcRun.standardOutput.hasPrefix("{\n  \"summary\": \"evicted 0 of 3 objects"), gcRun.standardOutput)
        XCTAssertTrue((gc["summary"] as? String)?.contains("budget NOT met: 3 objects are retained") == true)
        let text = try CommandRunner.run(["cache", "gc", "--max-bytes", "1", "--cache-dir", cache.path])
        XCTAssertEqual(text.status, 1)
        XCTAssertTrue(text.standardOutput.hasPrefix("summary: evicted 0 of 3 objects"), text.standardOutput)

        XCTAssertEqual(try CommandRunner.run(["cache", "gc", "--cache-dir", cache.path]).status, 2, "gc needs a budget")
        XCTAssertEqual(try CommandRunner.run(["cache", "prune", "--cache-dir", cache.path]).status, 2)
    }

    func testDefaultRetentionIsAnOption() throws {
        let cache = try makeTemporaryDirectory("cachecmd")
        let origin = "https://media.example.com/=" + packageRoot.appendingPathComponent("Fixtures/media").path
        let process = try CommandRunner.run([
            "process", "--local-origin", origin, "--cache-dir", cache.path, "--default-retention", "1s",
            "Fixtures/jobs/sample.ndjson",
        ])
        XCTAssertEqual(process.status, 0, process.standardError)
        // The sample's jobs carry no apns-expiration, so the option decides; retention rounds up to the hour.
        let objects = FileManager.default.enumerator(at: cache.appendingPathComponent("objects"), includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "json" } ?? []
        XCTAssertEqual(objects.count, 4)
        for sidecar in objects {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: sidecar)) as? [String: Any])
            let retainUntil = try Date.ISO8601FormatStyle(includingFractionalSeconds: true)
                .parse(try XCTUnwrap(object["retainUntil"] as? String))
            XCTAssertLessThanOrEqual(retainUntil.timeIntervalSinceNow, 3601, "retained to the next hour, not 30 days")
        }
    }

    func testMaintenanceOfAMissingCacheIsAnErrorAndCreatesNothing() throws {
        let missing = try makeTemporaryDirectory("missing").appendingPathComponent("cache")
        for action in [["stats"], ["gc", "--max-bytes", "1MB"], ["verify"]] {
            let output = try CommandRunner.run(["cache"] + action + ["--cache-dir", missing.path])
            XCTAssertEqual(output.status, 3, action.joined(separator: " "))
            XCTAssertTrue(output.standardError.contains("no cache at \(missing.path)"), output.standardError)
            XCTAssertFalse(FileManager.default.fileExists(atPath: missing.path), "maintenance must not create a cache")
        }
    }
}
