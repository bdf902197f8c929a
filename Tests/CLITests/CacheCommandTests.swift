import Foundation
import XCTest

/// `richpush cache stats | gc | verify` on a cache filled by `process`.
final class CacheCommandTests: XCTestCase {
    private func json(_ output: CommandRunner.Output) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [String: Any], output.standardOutput)
    }

    func testStatsVerifyRepairAndRetentionAwareGC() throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-cachecmd-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        let origin = "https://media.example.com/=" + CommandRunner.packageRoot.appendingPathComponent("Fixtures/media").path
        let process = try CommandRunner.run(["process", "--local-origin", origin, "--cache-dir", cache.path, "Fixtures/jobs/sample.ndjson"])
        XCTAssertEqual(process.status, 0, process.standardError)

        let stats = try json(try CommandRunner.run(["cache", "stats", "--format", "json", "--cache-dir", cache.path]))
        XCTAssertEqual(stats["objectCount"] as? Int, 4)
        XCTAssertEqual(stats["negativeEntryCount"] as? Int, 1, "the broken image is remembered")

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

        // Every remaining object is retained for the jobs that used it (30 days): gc evicts none and says why.
        let gc = try json(try CommandRunner.run(["cache", "gc", "--max-bytes", "0", "--format", "json", "--cache-dir", cache.path]))
        XCTAssertEqual(gc["evictedObjects"] as? Int, 0)
        XCTAssertEqual(gc["budgetMet"] as? Bool, false)
        let kept = try XCTUnwrap(gc["notEvicted"] as? [[String: Any]])
        XCTAssertEqual(kept.count, 3)
        XCTAssertEqual(Set(kept.compactMap { $0["reason"] as? String }), ["retained"])

        XCTAssertEqual(try CommandRunner.run(["cache", "gc", "--cache-dir", cache.path]).status, 2, "gc needs a budget")
        XCTAssertEqual(try CommandRunner.run(["cache", "prune", "--cache-dir", cache.path]).status, 2)
    }
}
