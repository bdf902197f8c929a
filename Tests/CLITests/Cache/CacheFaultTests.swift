import Foundation
import XCTest
import TestSupport

/// The cache directory fails under the worker: it fills up (ENOSPC on a tiny tmpfs), or it turns read-only mid-run.
/// Every job still gets its line within the deadline, media fail with a cache error instead of crashing the worker,
/// and what the cache holds afterwards passes `verify`.
final class CacheFaultTests: XCTestCase {
    private var mountPoint: URL!

    override func setUpWithError() throws {
        mountPoint = try TemporaryDirectory.make("tmpfs")
        // 300 KB: room for the cache layout and about one story page, not for the whole sample.
        guard shell("mount", "-t", "tmpfs", "-o", "size=300k", "tmpfs", mountPoint.path) == 0 else {
            throw XCTSkip("mounting a tmpfs needs root and CAP_SYS_ADMIN; this machine refused")
        }
    }

    override func tearDownWithError() throws {
        _ = shell("umount", "-l", mountPoint.path)
        // Here rather than in a teardown block, which would run before the unmount.
        TemporaryDirectory.remove(mountPoint)
    }

    @discardableResult
    private func shell(_ arguments: String...) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    private func runSample(cache: URL) throws -> [[String: Any]] {
        let origin = "https://media.example.com/=" + packageRoot.appendingPathComponent("Fixtures/media").path
        let output = try CommandRunner.run([
            "process", "--deadline", "10s", "--local-origin", origin, "--cache-dir", cache.path, "Fixtures/jobs/sample.ndjson",
        ])
        XCTAssertEqual(output.status, 0, output.standardError)
        XCTAssertEqual(output.lines.count, 4, "one line per job, whatever the disk does")
        return try output.lines.map { try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    func testFullDiskFailsMediaNotJobs() throws {
        let cache = mountPoint.appendingPathComponent("cache")
        let results = try runSample(cache: cache)
        let media = results.flatMap { ($0["media"] as? [[String: Any]]) ?? [] }
        let codes = media.compactMap { ($0["error"] as? [String: Any])?["code"] as? String }
        XCTAssertTrue(codes.contains("cache_io"), "a full disk shows as cache_io: \(codes)")
        XCTAssertEqual(results.map { $0["status"] as? String }.contains("rejected"), false)
        for result in results where result["status"] as? String != "passthrough" {
            XCTAssertNotNil(result["apns"] as? [String: Any], "fail open: every job is still sendable")
        }
        let verify = try CommandRunner.run(["cache", "verify", "--cache-dir", cache.path])
        XCTAssertEqual(verify.status, 0, verify.standardOutput)
    }

    func testReadOnlyCacheFailsMediaNotJobs() throws {
        let cache = mountPoint.appendingPathComponent("cache")
        // Lay the cache out, then remount the filesystem read-only under the next run.
        _ = try runSample(cache: cache)
        XCTAssertEqual(shell("mount", "-o", "remount,ro", mountPoint.path), 0)
        let results = try runSample(cache: cache)
        for result in results {
            XCTAssertNotEqual(result["status"] as? String, "rejected")
        }
        let verify = try CommandRunner.run(["cache", "verify", "--cache-dir", cache.path])
        XCTAssertEqual(verify.status, 0, verify.standardOutput)
    }
}
