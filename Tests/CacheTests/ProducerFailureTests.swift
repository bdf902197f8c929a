import Foundation
import XCTest

import RichPush
@testable import RichPushCore
@testable import RichPushCache
@testable import RichPushHTTP
@testable import RichPushImaging
import TestSupport

/// The store asks a producer's error whether it is permanent: only then is it remembered as a negative entry, and a
/// failure read back from disk is still the same code and description, permanent and not our fault.
final class ProducerFailureTests: XCTestCase {
    func testTransientFailureIsThrownWithItsOwnClassificationAndNotRemembered() async throws {
        let store = try FileMediaStore(configuration: makeConfiguration(root: try makeTemporaryDirectory()))
        let source = "https://origin.test/slow.jpg"
        let cacheKey = key(source)
        do {
            _ = try await store.object(
                for: cacheKey, sourceURL: source, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
                produce: { _ in .failure(ImageError.outOfMemory(bytes: 64)) })
            XCTFail("a fault of ours is thrown, not remembered")
        } catch {
            XCTAssertEqual(error.code, "out_of_memory")
            XCTAssertEqual(error.description, ImageError.outOfMemory(bytes: 64).description)
            XCTAssertTrue(error.isLocalFault, "the producer's own error answers through the cache")
            XCTAssertFalse(error.isPermanent)
        }
        let again = try await store.object(
            for: cacheKey, sourceURL: source, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
            produce: { _ in jpegProduction("ok") })
        XCTAssertEqual(again.kind, "produced", "nothing was remembered for the transient failure")
    }

    func testPermanentFailureIsRememberedAndReadBackAsTheSameFailure() async throws {
        let store = try FileMediaStore(configuration: makeConfiguration(root: try makeTemporaryDirectory()))
        let source = "https://origin.test/gone.jpg"
        let refusal = FetchError.httpStatus(url: source, code: 404)
        let first = try await store.object(
            for: key(source), sourceURL: source, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
            produce: { _ in .failure(refusal) })
        guard case .failed(let recorded, cached: false) = first else { return XCTFail("got \(first.kind)") }
        let again = try await store.object(
            for: key(source), sourceURL: source, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
            produce: { _ in XCTFail("a live negative entry answers"); return jpegProduction("no") })
        guard case .failed(let stored, cached: true) = again else { return XCTFail("got \(again.kind)") }
        for failure in [recorded, stored] {
            XCTAssertEqual(failure.error.code, refusal.code)
            XCTAssertEqual(failure.error.description, refusal.description)
            XCTAssertTrue(failure.error.isPermanent)
            XCTAssertFalse(failure.error.isLocalFault)
        }
    }

    func testStoreErrorsAreNeverPermanentAndOnlyOurDiskAndConfigurationAreOurFault() {
        // cache_io is ours: the cache's disk, its permissions and its free space belong to this deployment.
        XCTAssertEqual(CacheError.io(path: "/cache", reason: "No space left on device").code, .cacheIO)
        XCTAssertTrue(CacheError.io(path: "/cache", reason: "No space left on device").isLocalFault)
        XCTAssertTrue(CacheError.invalidConfiguration(reason: "x").isLocalFault)
        XCTAssertFalse(CacheError.lockTimeout(key: "k").isLocalFault)
        XCTAssertFalse(CacheError.objectStorage(operation: "PUT", key: "k", reason: "503").isLocalFault)
        XCTAssertFalse(CacheError.producerFailed(FetchError.stalled(url: "https://a.test/x")).isLocalFault)
        XCTAssertEqual(CacheError.producerFailed(FetchError.stalled(url: "https://a.test/x")).code, "stalled")
        for error in [CacheError.io(path: "/c", reason: "r"), .lockTimeout(key: "k"), .deadlineExceeded, .cancelled,
                      .producerFailed(FetchError.httpStatus(url: "https://a.test/x", code: 404))] {
            XCTAssertFalse(error.isPermanent, "\(error) is thrown, so it is retried")
        }
    }
}
