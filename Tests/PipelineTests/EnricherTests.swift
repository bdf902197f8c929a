import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushPayload
@testable import RichPushImaging
@testable import RichPushHTTP
@testable import RichPushCache
@testable import RichPushPipeline

final class EnricherTests: PipelineTestCase {
    func testStoryPagesPointAtCachedVariantsWithStoriesCategory() async throws {
        let (enricher, fetcher, _) = try makeEnricher()
        defer { fetcher.shutdown() }
        let result = try await enrichOne(enricher, """
            {"id":"s1","payload":{"aps":{"alert":{"title":"T","body":"B"}},"pw_stories":{"pages":[
              {"image":"https://media.example.com/story1.jpg","title":"One"},
              {"image":"https://media.example.com/story2.jpg","title":"Two"}]},"campaign":"c-7"}}
            """)
        XCTAssertEqual(result.status, .enriched)
        XCTAssertEqual(result.id, "s1")
        XCTAssertEqual(result.media.count, 2)
        for (index, media) in result.media.enumerated() {
            XCTAssertEqual(media.status, .rendered)
            XCTAssertEqual(media.variant, "story")
            let cached = try XCTUnwrap(media.published?.publicURL)
            XCTAssertTrue(cached.hasPrefix(Self.publicBase + "/objects/"), cached)
            XCTAssertTrue(cached.hasSuffix(".jpg"), cached)
            XCTAssertEqual(media.published?.size?.width, 1080)
            XCTAssertEqual(media.published?.size?.height, 1620)
            XCTAssertLessThanOrEqual(try XCTUnwrap(media.published?.bytes), 350_000)
            XCTAssertEqual(result.payloadValue(at: "/pw_stories/pages/\(index)/image"), .string(cached))
        }
        XCTAssertEqual(result.payloadValue(at: "/aps/category"), .string("PW_STORIES"))
        XCTAssertEqual(result.payloadValue(at: "/aps/mutable-content"), .number("1"))
        XCTAssertEqual(result.payloadValue(at: "/campaign"), .string("c-7"), "custom keys survive")
        XCTAssertEqual(result.header("apns-push-type"), "alert")
        XCTAssertEqual(result.header("apns-priority"), "10")
    }

    func testBrokenImageFallsBackWithAlertTextAndIsStillSent() async throws {
        try Data("<html><body>404 Not Found</body></html>".utf8)
            .write(to: temporaryDirectory.appendingPathComponent("broken.jpg"))
        var fetch = FetchConfiguration()
        fetch.localOrigins = [LocalOrigin(prefix: "https://media.example.com/", directory: temporaryDirectory.path)]
        let fetcher = try Fetcher(configuration: fetch)
        defer { fetcher.shutdown() }
        let store = try FileMediaStore(configuration: CacheConfiguration(
            root: temporaryDirectory.appendingPathComponent("cache"), publicBaseURL: Self.publicBase))
        let enricher = Enricher(store: store, fetcher: fetcher)

        let result = try await enrichOne(enricher, """
            {"id":"b1","payload":{"aps":{"alert":{"body":"Flash sale"}},"attachment":"https://media.example.com/broken.jpg"}}
            """)
        XCTAssertEqual(result.status, .fallback)
        XCTAssertEqual(result.media.first?.status, .failed)
        XCTAssertEqual(result.media.first?.errorCode, "unsupported_format")
        XCTAssertNotNil(result.apns, "fail open: the job is still sent")
        XCTAssertEqual(result.payloadValue(at: "/aps/alert/body"), .string("Flash sale"))
        XCTAssertNil(result.payloadValue(at: "/attachment"), "the failed attachment is removed")
        XCTAssertNil(result.payloadValue(at: "/attachment_source"), "originals stay out of the device payload")
        XCTAssertEqual(result.media.first?.source, "https://media.example.com/broken.jpg")

        // The failure is remembered: the second job fails fast from the negative entry.
        let again = try await enrichOne(enricher, """
            {"id":"b2","payload":{"aps":{"alert":{"body":"Flash sale"}},"attachment":"https://media.example.com/broken.jpg"}}
            """)
        XCTAssertEqual(again.media.first?.errorCode, "unsupported_format")
    }

    func testSilentPushIsPassedThroughAsBackgroundWithoutFetching() async throws {
        let (enricher, fetcher, _) = try makeEnricher()
        defer { fetcher.shutdown() }
        let result = try await enrichOne(enricher, """
            {"id":"q1","payload":{"aps":{"content-available":1},"image_url":"https://media.example.com/hero.jpg","sync":"inbox"}}
            """)
        XCTAssertEqual(result.status, .passthrough)
        XCTAssertTrue(result.media.isEmpty)
        XCTAssertEqual(result.header("apns-push-type"), "background")
        XCTAssertEqual(result.header("apns-priority"), "5")
        XCTAssertEqual(result.payloadValue(at: "/sync"), .string("inbox"))
        XCTAssertNil(result.payloadValue(at: "/aps/alert"))
    }

    func testSameSourceUnderTwoKeysIsRenderedOnceAndBothRewritten() async throws {
        let (enricher, fetcher, store) = try makeEnricher()
        defer { fetcher.shutdown() }
        let result = try await enrichOne(enricher, """
            {"aps":{"alert":{"title":"T","body":"B"}},"image_url":"https://media.example.com/hero.jpg",
             "fcm_options":{"image":"https://media.example.com/hero.jpg"}}
            """)
        XCTAssertEqual(result.status, .enriched)
        XCTAssertEqual(result.media.count, 2)
        XCTAssertEqual(Set(result.media.map(\.pointer)), ["/image_url", "/fcm_options/image"])
        XCTAssertEqual(result.media[0].published?.publicURL, result.media[1].published?.publicURL)
        XCTAssertEqual(result.payloadValue(at: "/image_url"), result.payloadValue(at: "/fcm_options/image"))
        let statistics = try await store.statistics()
        XCTAssertEqual(statistics.objectCount, 1)
    }

    func testSecondJobIsServedFromCache() async throws {
        let (enricher, fetcher, _) = try makeEnricher()
        defer { fetcher.shutdown() }
        let job = #"{"aps":{"alert":{"title":"T","body":"B"}},"image_url":"https://media.example.com/hero.jpg"}"#
        let first = try await enrichOne(enricher, job)
        let second = try await enrichOne(enricher, job)
        XCTAssertEqual(first.media.first?.status, .rendered)
        XCTAssertEqual(second.media.first?.status, .cached)
        XCTAssertEqual(first.media.first?.published?.publicURL, second.media.first?.published?.publicURL)
    }

    func testMalformedDocumentIsRejectedWithPointer() async throws {
        let (enricher, fetcher, _) = try makeEnricher()
        defer { fetcher.shutdown() }
        let results = await enricher.enrich(document: Data(#"{"aps": {"alert": "x",}"#.utf8), line: 7)
        XCTAssertEqual(results.count, 1)
        XCTAssertEqual(results.first?.status, .rejected)
        XCTAssertEqual(results.first?.line, 7)
        XCTAssertNil(results.first?.apns)
        XCTAssertFalse(results.first?.diagnostics.isEmpty ?? true)
    }

    func testStatusSummarisesMediaOutcomes() {
        func media(_ outcome: MediaOutcome) -> MediaResult {
            MediaResult(pointer: "/p", source: "s", variant: "attachment", outcome: outcome, milliseconds: 0)
        }
        func published(_ publication: MediaOutcome.Publication) -> MediaResult {
            media(.published(PublishedMedia(publicURL: "u", format: .jpeg, bytes: 1, size: nil), publication))
        }
        let failed = media(.failed(RememberedFailure(code: "http_404", message: "gone")))
        XCTAssertEqual(Enricher.status(of: []), .passthrough)
        XCTAssertEqual(Enricher.status(of: [published(.rendered), published(.cached)]), .enriched)
        XCTAssertEqual(Enricher.status(of: [published(.rendered), failed]), .partial)
        XCTAssertEqual(Enricher.status(of: [media(.skipped(reason: "late")), failed]), .fallback)
    }
}

/// The enricher asks the store for an immediate answer, then resolves what it did not get: the key is read once
/// without its lock and once under it, not once per layer on the way.
final class EnricherLookupTests: PipelineTestCase {
    private let job = #"{"aps":{"alert":"Hi"},"image_url":"https://media.example.com/hero.jpg"}"#

    func testColdMediaIsReadOnceWithoutItsLockAndOnceUnderIt() async throws {
        let (enricher, fetcher, store) = try makeEnricher()
        defer { fetcher.shutdown() }
        let result = try await enrichOne(enricher, job)
        XCTAssertEqual(result.media.first?.status, .rendered)
        XCTAssertEqual(store.disk.looks.objects, 2)
        XCTAssertEqual(store.disk.looks.failures, 2)

        // Another worker on the same cache, with nothing in memory: one read answers it.
        let cache = temporaryDirectory.appendingPathComponent("cache", isDirectory: true)
        let (warmEnricher, warmFetcher, warmStore) = try makeEnricher(cacheDirectory: cache)
        defer { warmFetcher.shutdown() }
        let warm = try await enrichOne(warmEnricher, job)
        XCTAssertEqual(warm.media.first?.status, .cached)
        XCTAssertEqual(warmStore.disk.looks.objects, 1)
        XCTAssertEqual(warmStore.disk.looks.failures, 0)
    }

    func testPrewarmReadsAColdKeyOnceWithoutItsLockAndOnceUnderIt() async throws {
        let (enricher, fetcher, store) = try makeEnricher()
        defer { fetcher.shutdown() }
        let prewarmed = await enricher.prewarm(
            source: "https://media.example.com/hero.jpg", variant: "attachment", deadline: .now + .seconds(60))
        XCTAssertEqual(prewarmed.status, .rendered)
        XCTAssertEqual(store.disk.looks.objects, 2)
        XCTAssertEqual(store.disk.looks.failures, 2)
    }
}

final class ResultTargetTests: PipelineTestCase {
    /// The result JSON that process, consume and validate print carries the addressing, before `apns`.
    func testResultJSONCarriesTargetAndTopic() async throws {
        let (enricher, fetcher, _) = try makeEnricher()
        defer { fetcher.shutdown() }
        let result = try await enrichOne(enricher, #"{"id":"e","token":"abcd","topic":"com.example.app","payload":{"aps":{"alert":"hi"}}}"#)
        guard case .object(let json) = result.json else { return XCTFail("not an object") }
        XCTAssertEqual(json.keys, ["id", "status", "target", "request", "apns", "media", "diagnostics", "timings"])
        XCTAssertEqual(json["target"], .object(["token": .string("abcd")]))
        XCTAssertEqual(result.json.value(at: "/apns/headers/apns-topic"), .string("com.example.app"))

        let rejected = await enricher.enrich(document: Data("{".utf8), line: 3)
        XCTAssertEqual(rejected.first?.json.value(at: "/target"), .null)
    }
}

final class InvalidMediaTests: PipelineTestCase {
    /// An unfetchable media URL counts as failed media: the job is `fallback` (or `partial`), and it is not fetched.
    func testUnfetchableMediaMakesTheJobFallbackOrPartial() async throws {
        let (enricher, fetcher, _) = try makeEnricher()
        defer { fetcher.shutdown() }
        let only = try await enrichOne(enricher, #"{"id":"f","payload":{"aps":{},"image_url":"file:///etc/passwd"}}"#)
        XCTAssertEqual(only.status, .fallback)
        XCTAssertEqual(only.media.first?.errorCode, "media_url_invalid")
        XCTAssertNil(only.payloadValue(at: "/image_url"))
        XCTAssertNil(only.payloadValue(at: "/aps/alert"), "a push without an alert never gets one")

        let mixed = try await enrichOne(enricher, #"{"id":"m","payload":{"aps":{"alert":"x"},"att":{"a":"ftp://m.example/a.jpg","b":"https://media.example.com/hero.jpg"}}}"#)
        XCTAssertEqual(mixed.status, .partial)
        XCTAssertEqual(mixed.media.map(\.status), [.failed, .rendered])
        XCTAssertNil(mixed.payloadValue(at: "/att/a"))
    }

    /// Issue 26: a job whose media all rendered but that lost some of what its author wrote (here a link the
    /// device would refuse) is `partial`, not `enriched`; its retention counts from its scheduled send time.
    func testAnyRemovalMakesTheJobPartialAndRetentionFollowsTheSendTime() async throws {
        let (enricher, fetcher, _) = try makeEnricher()
        defer { fetcher.shutdown() }
        let result = try await enrichOne(enricher, """
            {"id":"p1","payload":{"aps":{"alert":{"title":"T","body":"B"}},"pw_stories":{"pages":[
              {"image":"https://media.example.com/story1.jpg","link":"javascript:alert(1)","button_title":"Go"}]}}}
            """)
        XCTAssertEqual(result.media.first?.status, .rendered)
        XCTAssertEqual(result.status, .partial)
        let now = Date()
        let scheduled = now.addingTimeInterval(14 * 86_400)
        let document = #"{"token":"t","ttl":3600,"send_at":\#(Int(scheduled.timeIntervalSince1970)),"payload":{"aps":{"alert":"x"}}}"#
        guard case .jobs(let jobs) = PayloadParser().parse(Data(document.utf8)), let job = jobs.first else {
            return XCTFail("the envelope should parse")
        }
        XCTAssertEqual(enricher.retention(for: job, now: now).timeIntervalSince1970,
                       scheduled.addingTimeInterval(86_400).timeIntervalSince1970, accuracy: 1)
    }
}
