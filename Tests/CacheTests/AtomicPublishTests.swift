import Foundation
import XCTest

import RichPush
@testable import RichPushCore
@testable import RichPushCache
@testable import RichPushHTTP
@testable import RichPushPipeline
import TestSupport

/// Crash leftovers built by hand, one per point in the publish sequence.
final class AtomicPublishTests: XCTestCase {
    private func shardDirectory(_ root: URL, _ cacheKey: CacheKey) -> URL {
        let digest = cacheKey.hexDigest
        return root.appendingPathComponent("objects/\(digest.prefix(2))/\(digest.dropFirst(2).prefix(2))")
    }

    private func request(_ store: FileMediaStore, _ url: String, payload: String) async throws -> CacheOutcome {
        try await store.object(
            for: key(url), sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
            produce: { _ in jpegProduction(payload) })
    }

    func testPartialTemporaryFileIsNeverServedAndVerifyRemovesIt() async throws {
        let root = try makeTemporaryDirectory()
        let store = try FileMediaStore(configuration: makeConfiguration(root: root))
        let url = "https://origin.test/partial.jpg"
        let cacheKey = key(url)
        let partial = root.appendingPathComponent("tmp/\(cacheKey.hexDigest).999.1.object.part")
        try fakeJPEG("half", size: 4096).prefix(1000).write(to: partial)
        let lookedUp = try await store.lookup(cacheKey)
        XCTAssertNil(lookedUp)

        let report = try await store.verify(repair: false)
        XCTAssertEqual(report.temporaryLeftovers, ["tmp/\(cacheKey.hexDigest).999.1.object.part"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: partial.path), "without repair nothing changes")
        let repaired = try await store.verify(repair: true)
        XCTAssertEqual(repaired.removed, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: partial.path))
        let outcome = try await request(store, url, payload: "whole")
        XCTAssertEqual(outcome.kind, "produced")
        let clean = try await store.verify(repair: false)
        XCTAssertEqual(clean.problemCount, 0)
    }

    func testObjectWithoutSidecarIsNeverServedAndIsProducedAgain() async throws {
        let root = try makeTemporaryDirectory()
        let store = try FileMediaStore(configuration: makeConfiguration(root: root))
        let url = "https://origin.test/orphan.jpg"
        let cacheKey = key(url)
        let directory = shardDirectory(root, cacheKey)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try fakeJPEG("crashed-before-sidecar").write(to: directory.appendingPathComponent("\(cacheKey.hexDigest).jpg"))
        let lookedUp = try await store.lookup(cacheKey)
        XCTAssertNil(lookedUp)

        let report = try await store.verify(repair: false)
        XCTAssertEqual(report.orphanObjects.count, 1)
        XCTAssertEqual(report.mismatchedObjects, [])
        _ = try await store.verify(repair: true)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [])

        let outcome = try await request(store, url, payload: "fresh")
        XCTAssertEqual(outcome.kind, "produced")
        XCTAssertEqual(try storedBytes(store, try XCTUnwrap(outcome.object)), fakeJPEG("fresh"))
    }

    func testSidecarWithoutObjectIsNeverServedAndIsProducedAgain() async throws {
        let root = try makeTemporaryDirectory()
        let store = try FileMediaStore(configuration: makeConfiguration(root: root))
        let url = "https://origin.test/lost.jpg"
        let first = try await request(store, url, payload: "lost")
        let object = try XCTUnwrap(first.object)
        try FileManager.default.removeItem(at: root.appendingPathComponent(object.relativePath))
        let lookedUp = try await store.lookup(object.key)
        XCTAssertNil(lookedUp)

        let report = try await store.verify(repair: true)
        XCTAssertEqual(report.orphanSidecars.count, 1)
        let after = try await store.verify(repair: false)
        XCTAssertEqual(after.problemCount, 0)
        let again = try await request(store, url, payload: "found")
        XCTAssertEqual(again.kind, "produced")
    }

    func testTornAndTamperedObjectsAreQuarantined() async throws {
        let root = try makeTemporaryDirectory()
        let store = try FileMediaStore(configuration: makeConfiguration(root: root))
        let tornURL = "https://origin.test/torn.jpg"
        let tamperedURL = "https://origin.test/tampered.jpg"
        let tornOutcome = try await request(store, tornURL, payload: "torn")
        let tamperedOutcome = try await request(store, tamperedURL, payload: "tampered")
        let healthyOutcome = try await request(store, "https://origin.test/ok.jpg", payload: "ok")
        let torn = try XCTUnwrap(tornOutcome.object)
        let tampered = try XCTUnwrap(tamperedOutcome.object)
        let healthy = try XCTUnwrap(healthyOutcome.object)

        // Truncated: readers see a size mismatch and treat it as absent.
        let tornPath = root.appendingPathComponent(torn.relativePath)
        try fakeJPEG("torn").prefix(100).write(to: tornPath)
        let tornLookup = try await store.lookup(torn.key)
        XCTAssertNil(tornLookup)
        // Same size, different bytes: only a re-hash notices.
        var bytes = try Data(contentsOf: root.appendingPathComponent(tampered.relativePath))
        bytes[bytes.count - 1] ^= 0xFF
        try bytes.write(to: root.appendingPathComponent(tampered.relativePath))

        let report = try await store.verify(repair: false)
        XCTAssertEqual(report.checkedObjects, 3)
        XCTAssertEqual(report.healthyObjects, 1)
        XCTAssertEqual(Set(report.mismatchedObjects), [torn.relativePath, tampered.relativePath])

        let repaired = try await store.verify(repair: true)
        XCTAssertEqual(repaired.quarantined, 4, "two objects and their sidecars")
        let quarantined = try FileManager.default.subpathsOfDirectory(
            atPath: root.appendingPathComponent("quarantine").path)
        XCTAssertTrue(quarantined.contains { $0.hasSuffix(tampered.key.hexDigest + ".jpg") }, "\(quarantined)")
        let clean = try await store.verify(repair: false)
        XCTAssertEqual(clean.problemCount, 0)
        XCTAssertEqual(clean.healthyObjects, 1)
        let stillThere = try await store.lookup(healthy.key)
        XCTAssertEqual(stillThere?.contentSHA256, healthy.contentSHA256)

        let again = try await request(store, tamperedURL, payload: "tampered")
        XCTAssertEqual(again.kind, "produced")
    }

    func testVerifySkipsKeysWhoseWriterHoldsTheLock() async throws {
        let root = try makeTemporaryDirectory()
        let store = try FileMediaStore(configuration: makeConfiguration(root: root))
        let url = "https://origin.test/busy.jpg"
        let cacheKey = key(url)
        let partial = root.appendingPathComponent("tmp/\(cacheKey.hexDigest).1.2.object.part")
        try Data("in progress".utf8).write(to: partial)
        let lock = try XCTUnwrap(try CacheFileLock.attempt(root.appendingPathComponent("locks/\(cacheKey.hexDigest).lock").path))
        let report = try await store.verify(repair: true)
        XCTAssertEqual(report.temporaryLeftovers, [])
        XCTAssertTrue(FileManager.default.fileExists(atPath: partial.path))
        lock.release()
        let after = try await store.verify(repair: true)
        XCTAssertEqual(after.temporaryLeftovers.count, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: partial.path))
    }
}
