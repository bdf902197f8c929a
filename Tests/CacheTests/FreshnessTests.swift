import Foundation
import XCTest

import RichPush
@testable import RichPushCore
@testable import RichPushCache
@testable import RichPushHTTP
@testable import RichPushPipeline
import TestSupport

final class FreshnessTests: XCTestCase {
    func testStaleObjectIsRevalidatedAndNotModifiedRefreshesMetadataOnly() async throws {
        let root = try makeTemporaryDirectory()
        let clock = ManualCacheClock()
        let store = try FileMediaStore(configuration: makeConfiguration(root: root, clock: clock))
        let url = "https://origin.test/revalidate.jpg"
        let cacheKey = key(url)
        let first = try await store.object(
            for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
            produce: { _ in jpegProduction("v1", etag: "\"v1\"", maxAge: .milliseconds(500)) })
        let original = try XCTUnwrap(first.object)
        let fresh = try await store.object(
            for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
            produce: { _ in XCTFail("fresh object must not be produced"); return jpegProduction("no") })
        XCTAssertEqual(fresh.kind, "hit")

        clock.advance(by: .milliseconds(550))
        let renders = CallCounter()
        let revalidated = try await store.object(
            for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
            produce: { stale in
                XCTAssertEqual(stale?.etag, "\"v1\"", "the producer gets the stale object for If-None-Match")
                XCTAssertEqual(stale?.contentSHA256, original.contentSHA256)
                if stale?.etag == "\"v1\"" {
                    return .notModified(etag: nil, lastModified: "Tue, 01 Dec 2026 10:00:00 GMT", maxAge: .milliseconds(500))
                }
                _ = renders.increment()
                return jpegProduction("v1-rerendered")
            })
        guard case .revalidated(let refreshed) = revalidated else { return XCTFail("got \(revalidated.kind)") }
        XCTAssertEqual(renders.count(), 0)
        XCTAssertEqual(refreshed.contentSHA256, original.contentSHA256)
        XCTAssertEqual(refreshed.etag, "\"v1\"")
        XCTAssertEqual(refreshed.lastModified, "Tue, 01 Dec 2026 10:00:00 GMT")
        XCTAssertGreaterThan(refreshed.expiresAt, original.expiresAt)
        XCTAssertEqual(try storedBytes(store, refreshed), fakeJPEG("v1"))
        let storedAfter = try await store.lookup(cacheKey)
        XCTAssertEqual(storedAfter, refreshed, "the returned object is exactly what the sidecar holds")

        // After the TTL again, the origin has changed: new ETag, new bytes, re-rendered.
        clock.advance(by: .milliseconds(550))
        let changed = try await store.object(
            for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
            produce: { stale in
                XCTAssertEqual(stale?.etag, "\"v1\"")
                return jpegProduction("v2", etag: "\"v2\"")
            })
        guard case .produced(let rerendered) = changed else { return XCTFail("got \(changed.kind)") }
        XCTAssertEqual(rerendered.etag, "\"v2\"")
        XCTAssertEqual(try storedBytes(store, rerendered), fakeJPEG("v2"))
        XCTAssertEqual(rerendered.relativePath, original.relativePath)
        let report = try await store.verify(repair: false)
        XCTAssertEqual(report.problemCount, 0)
        XCTAssertEqual(report.healthyObjects, 1)
    }

    func testTTLIsCappedByMaximumAndDefaultsWithoutMaxAge() async throws {
        let root = try makeTemporaryDirectory()
        let store = try FileMediaStore(configuration: makeConfiguration(root: root))
        let capped = try await store.object(
            for: key("https://origin.test/cap"), sourceURL: "https://origin.test/cap", variant: "attachment",
            retainUntil: nil, deadline: farDeadline(), produce: { _ in jpegProduction("c", maxAge: .seconds(10 * 86_400)) })
        let cappedObject = try XCTUnwrap(capped.object)
        XCTAssertEqual(cappedObject.expiresAt.timeIntervalSince(cappedObject.fetchedAt), 86_400, accuracy: 1)
        let defaulted = try await store.object(
            for: key("https://origin.test/default"), sourceURL: "https://origin.test/default", variant: "attachment",
            retainUntil: nil, deadline: farDeadline(), produce: { _ in jpegProduction("d") })
        let defaultedObject = try XCTUnwrap(defaulted.object)
        XCTAssertEqual(defaultedObject.expiresAt.timeIntervalSince(defaultedObject.fetchedAt), 3600, accuracy: 1)
        XCTAssertEqual(CacheConfiguration(root: root, publicBaseURL: "https://x").defaultTTL, .seconds(7 * 86_400))
    }

    func testNegativeEntryFailsFastWithinTTLAndRetriesAfter() async throws {
        let root = try makeTemporaryDirectory()
        let clock = ManualCacheClock()
        let store = try FileMediaStore(
            configuration: makeConfiguration(root: root, negativeTTL: .seconds(1), clock: clock))
        let url = "https://origin.test/missing.jpg"
        let cacheKey = key(url)
        let fetches = CallCounter()
        let produce: @Sendable (CachedObject?) async throws -> CacheProduction = { _ in
            _ = fetches.increment()
            return .failure(RememberedFailure(code: "http_status", message: "HTTP 404 from https://origin.test/missing.jpg"))
        }
        let first = try await store.object(
            for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
            produce: produce)
        guard case .failed(let failure, cached: false) = first else { return XCTFail("got \(first.kind)") }
        XCTAssertEqual(failure.code, "http_status")
        for _ in 0..<5 {
            let again = try await store.object(
                for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
                produce: produce)
            guard case .failed(let cached, cached: true) = again else { return XCTFail("got \(again.kind)") }
            XCTAssertEqual(cached.message, "HTTP 404 from https://origin.test/missing.jpg")
        }
        // Another process sharing the root also fails fast.
        let other = try FileMediaStore(
            configuration: makeConfiguration(root: root, negativeTTL: .seconds(1), clock: clock))
        let fromOther = try await other.object(
            for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
            produce: produce)
        XCTAssertEqual(fromOther.kind, "failed-cached")
        XCTAssertEqual(fetches.count(), 1)
        let statistics = try await store.statistics()
        XCTAssertEqual(statistics.negativeEntryCount, 1)
        XCTAssertEqual(statistics.negativeHits, 6, "five here, one in the other store")

        clock.advance(by: .milliseconds(1_050))
        let afterTTL = try await store.object(
            for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
            produce: produce)
        XCTAssertEqual(afterTTL.kind, "failed")
        XCTAssertEqual(fetches.count(), 2)

        // A later success clears the negative entry.
        clock.advance(by: .milliseconds(1_050))
        let recovered = try await store.object(
            for: cacheKey, sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
            produce: { _ in jpegProduction("back") })
        XCTAssertEqual(recovered.kind, "produced")
        let after = try await store.statistics()
        XCTAssertEqual(after.negativeEntryCount + after.expiredNegativeEntryCount, 0)
    }
}
