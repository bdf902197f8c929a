import Foundation
import XCTest

import RichPush
@testable import RichPushCore
@testable import RichPushCache
@testable import RichPushHTTP
@testable import RichPushPipeline
import TestSupport

final class FileMediaStoreTests: XCTestCase {
    func testProduceThenHitWithLayoutAndSidecar() async throws {
        let root = try makeTemporaryDirectory()
        let store = try FileMediaStore(configuration: makeConfiguration(root: root))
        let cacheKey = key("https://origin.test/a.jpg?sig=1")
        let counter = CallCounter()
        let produce: @Sendable (CachedObject?) async throws -> CacheProduction = { stale in
            XCTAssertNil(stale)
            _ = counter.increment()
            return jpegProduction("first", etag: "\"v1\"", maxAge: .seconds(120))
        }
        let first = try await store.object(
            for: cacheKey, sourceURL: "https://origin.test/a.jpg?sig=1", variant: "attachment", retainUntil: nil,
            deadline: farDeadline(), produce: produce)
        guard case .produced(let object) = first else { return XCTFail("expected produced, got \(first.kind)") }
        let shard = "\(cacheKey.hexDigest.prefix(2))/\(cacheKey.hexDigest.dropFirst(2).prefix(2))"
        XCTAssertEqual(object.relativePath, "objects/\(shard)/\(cacheKey.hexDigest).jpg")
        XCTAssertEqual(object.bytes, 2048)
        XCTAssertEqual(object.contentSHA256, SHA256.hexDigest(of: fakeJPEG("first")))
        XCTAssertEqual(object.etag, "\"v1\"")
        XCTAssertEqual(object.format, .jpeg)
        XCTAssertEqual(object.fileExtension, "jpg")
        XCTAssertEqual(object.expiresAt.timeIntervalSince(object.fetchedAt), 120, accuracy: 1)
        XCTAssertEqual(try storedBytes(store, object), fakeJPEG("first"))

        let sidecarURL = root.appendingPathComponent("objects/\(shard)/\(cacheKey.hexDigest).json")
        let sidecarText = try String(contentsOf: sidecarURL, encoding: .utf8)
        XCTAssertTrue(sidecarText.contains("\"sourceURL\" : \"https://origin.test/a.jpg?sig=1\""), sidecarText)
        XCTAssertTrue(sidecarText.range(of: #"\"fetchedAt\" : \"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\""#, options: .regularExpression) != nil, sidecarText)

        let second = try await store.object(
            for: cacheKey, sourceURL: "https://origin.test/a.jpg?sig=1", variant: "attachment", retainUntil: nil,
            deadline: farDeadline(), produce: produce)
        XCTAssertEqual(second.kind, "hit")
        XCTAssertEqual(counter.count(), 1)
        XCTAssertEqual(second.object?.contentSHA256, object.contentSHA256)

        // A second store instance (another process, in effect) sees it too, and the hit was recorded.
        let other = try FileMediaStore(configuration: makeConfiguration(root: root))
        let looked = try await other.lookup(cacheKey)
        XCTAssertEqual(looked?.hits, 1)
        XCTAssertGreaterThanOrEqual(looked?.lastUsedAt ?? .distantPast, object.lastUsedAt)
        let statistics = try await store.statistics()
        XCTAssertEqual(statistics.objectCount, 1)
        XCTAssertEqual(statistics.totalBytes, 2048)
        XCTAssertEqual(statistics.hits, 1)
        XCTAssertEqual(statistics.misses, 1)
        XCTAssertEqual(statistics.recordedObjectHits, 1)
        XCTAssertEqual(statistics.oldestEntry?.key, cacheKey)
        XCTAssertEqual(statistics.newestEntry?.key, cacheKey)
    }

    func testPublicURLIsHTTPSWithRealExtensionAndNoQuery() async throws {
        let root = try makeTemporaryDirectory()
        let store = try FileMediaStore(configuration: makeConfiguration(root: root))
        let jpegKey = key("https://origin.test/photo?format=webp&sig=abc")
        let jpeg = try await store.object(
            for: jpegKey, sourceURL: "https://origin.test/photo?format=webp&sig=abc", variant: "attachment",
            retainUntil: nil, deadline: farDeadline(), produce: { _ in jpegProduction("x") })
        let pngKey = key("https://origin.test/logo")
        let png = try await store.object(
            for: pngKey, sourceURL: "https://origin.test/logo", variant: "attachment", retainUntil: nil,
            deadline: farDeadline(),
            produce: { _ in
                .object(bytes: fakePNG("p"), format: .png, width: 1, height: 1, etag: nil,
                    lastModified: nil, maxAge: nil)
            })
        let gifKey = key("https://origin.test/anim")
        let gif = try await store.object(
            for: gifKey, sourceURL: "https://origin.test/anim", variant: "attachment", retainUntil: nil,
            deadline: farDeadline(),
            produce: { _ in
                .object(bytes: Data("GIF89a....".utf8), format: .gif, width: 1, height: 1,
                    etag: nil, lastModified: nil, maxAge: nil)
            })
        for (outcome, cacheKey, fileExtension) in [(jpeg, jpegKey, "jpg"), (png, pngKey, "png"), (gif, gifKey, "gif")] {
            let object = try XCTUnwrap(outcome.object)
            let url = store.publicURL(for: object)
            let shard = "\(cacheKey.hexDigest.prefix(2))/\(cacheKey.hexDigest.dropFirst(2).prefix(2))"
            XCTAssertEqual(url, "https://cdn.example.com/media/objects/\(shard)/\(cacheKey.hexDigest).\(fileExtension)")
            XCTAssertFalse(url.contains("?"))
            XCTAssertTrue(url.hasPrefix("https://"))
        }
        XCTAssertThrowsError(
            try FileMediaStore(configuration: CacheConfiguration(root: root, publicBaseURL: "https://cdn.test/m?token=1")))
        XCTAssertThrowsError(try FileMediaStore(configuration: CacheConfiguration(root: root, publicBaseURL: "ftp://cdn.test")))
    }

    func testOutputInADecodeOnlyFormatBecomesANegativeEntry() async throws {
        let root = try makeTemporaryDirectory()
        let store = try FileMediaStore(configuration: makeConfiguration(root: root))
        let cacheKey = key("https://origin.test/bad")
        let outcome = try await store.object(
            for: cacheKey, sourceURL: "https://origin.test/bad", variant: "attachment", retainUntil: nil,
            deadline: farDeadline(),
            produce: { _ in
                .object(bytes: Data("\0\0\0\u{18}ftypheic".utf8), format: .heic, width: 1, height: 1,
                    etag: nil, lastModified: nil, maxAge: nil)
            })
        guard case .failed(let failure, cached: false) = outcome else { return XCTFail("got \(outcome.kind)") }
        XCTAssertEqual(failure.code, "invalid_output")
        XCTAssertEqual(failure.message, "heic is decoded, never published")
        let lookedUp = try await store.lookup(cacheKey)
        XCTAssertNil(lookedUp)
        // An extension naming another format cannot be expressed: the production carries a typed
        // `CacheObjectFormat`, and the extension is the format's own.
    }

    func testProducerErrorsAreNotRemembered() async throws {
        let root = try makeTemporaryDirectory()
        let store = try FileMediaStore(configuration: makeConfiguration(root: root))
        struct Boom: Error {}
        let cacheKey = key("https://origin.test/boom")
        do {
            _ = try await store.object(
                for: cacheKey, sourceURL: "https://origin.test/boom", variant: "attachment", retainUntil: nil,
                deadline: farDeadline(), produce: { _ in throw Boom() })
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error.code, "producer_failed")
        }
        let again = try await store.object(
            for: cacheKey, sourceURL: "https://origin.test/boom", variant: "attachment", retainUntil: nil,
            deadline: farDeadline(), produce: { _ in jpegProduction("ok") })
        XCTAssertEqual(again.kind, "produced")
    }

    func testRetainUntilIsRaisedNeverLowered() async throws {
        let root = try makeTemporaryDirectory()
        let store = try FileMediaStore(configuration: makeConfiguration(root: root))
        let cacheKey = key("https://origin.test/retain")
        let later = Date().addingTimeInterval(30 * 86_400)
        let sooner = Date().addingTimeInterval(86_400)
        let first = try await store.object(
            for: cacheKey, sourceURL: "https://origin.test/retain", variant: "attachment", retainUntil: sooner,
            deadline: farDeadline(), produce: { _ in jpegProduction("r") })
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(first.object?.retainUntil), sooner)
        let raised = try await store.object(
            for: cacheKey, sourceURL: "https://origin.test/retain", variant: "attachment", retainUntil: later,
            deadline: farDeadline(), produce: { _ in jpegProduction("r") })
        XCTAssertEqual(raised.kind, "hit")
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(raised.object?.retainUntil), later)
        _ = try await store.object(
            for: cacheKey, sourceURL: "https://origin.test/retain", variant: "attachment", retainUntil: sooner,
            deadline: farDeadline(), produce: { _ in jpegProduction("r") })
        let stored = try await FileMediaStore(configuration: makeConfiguration(root: root)).lookup(cacheKey)
        let retained = try XCTUnwrap(stored?.retainUntil)
        XCTAssertGreaterThanOrEqual(retained, later)
        XCTAssertLessThan(retained.timeIntervalSince(later), 61, "rounded up to at most one granularity step")
    }

    func testImmediateOutcomeAnswersOnlyWhatNeedsNoResolution() async throws {
        let root = try makeTemporaryDirectory()
        let store = try FileMediaStore(configuration: makeConfiguration(root: root))
        let cacheKey = key("https://origin.test/immediate")
        let soon = Date().addingTimeInterval(86_400)
        let absent = await store.immediateOutcome(for: cacheKey, retainUntil: soon)
        XCTAssertNil(absent, "an absent key needs the producer")

        _ = try await store.object(
            for: cacheKey, sourceURL: "https://origin.test/immediate", variant: "attachment", retainUntil: soon,
            deadline: farDeadline(), produce: { _ in jpegProduction("i") })
        let warm = await store.immediateOutcome(for: cacheKey, retainUntil: soon)
        XCTAssertEqual(warm?.kind, "hit")
        XCTAssertEqual(warm?.object?.key, cacheKey)
        let longer = await store.immediateOutcome(for: cacheKey, retainUntil: soon.addingTimeInterval(30 * 86_400))
        XCTAssertNil(longer, "raising the retention takes the key's lock")

        let brokenKey = key("https://origin.test/broken")
        _ = try await store.object(
            for: brokenKey, sourceURL: "https://origin.test/broken", variant: "attachment", retainUntil: nil,
            deadline: farDeadline(), produce: { _ in .failure(RememberedFailure(code: "http_status", message: "404")) })
        let negative = await store.immediateOutcome(for: brokenKey, retainUntil: soon)
        XCTAssertEqual(negative?.kind, "failed-cached")

        // Immediate answers count like any other: one miss for each production, then the hit and the failure.
        let statistics = try await store.statistics()
        XCTAssertEqual(statistics.hits, 1)
        XCTAssertEqual(statistics.negativeHits, 1)
        XCTAssertEqual(statistics.misses, 2)
        XCTAssertEqual(statistics.recordedObjectHits, 1)
    }

    func testWarmKeysAreAnsweredFromMemoryForMemoryHitDurationOnly() async throws {
        let root = try makeTemporaryDirectory()
        var remembering = makeConfiguration(root: root)
        remembering.memoryHitDuration = .seconds(60)
        var checking = remembering
        checking.memoryHitDuration = .zero
        let cacheKey = key("https://origin.test/remembered")
        let stores = [try FileMediaStore(configuration: remembering), try FileMediaStore(configuration: checking)]
        for store in stores {
            _ = try await store.object(
                for: cacheKey, sourceURL: "https://origin.test/remembered", variant: "attachment", retainUntil: nil,
                deadline: farDeadline(), produce: { _ in jpegProduction("m") })
        }
        let looked = try await stores[0].lookup(cacheKey)
        let object = try XCTUnwrap(looked)
        try FileManager.default.removeItem(at: root.appendingPathComponent(object.relativePath))

        let remembered = await stores[0].immediateOutcome(for: cacheKey, retainUntil: nil)
        XCTAssertEqual(remembered?.kind, "hit", "within memoryHitDuration the disk is not checked")
        let checked = await stores[1].immediateOutcome(for: cacheKey, retainUntil: nil)
        XCTAssertNil(checked, "without the memory every request checks the object file")

        // GC in this process forgets what it remembered, whatever it deleted.
        _ = try await stores[0].collectGarbage(maximumBytes: nil, maximumAge: nil)
        let afterCollection = await stores[0].immediateOutcome(for: cacheKey, retainUntil: nil)
        XCTAssertNil(afterCollection)
    }
}
