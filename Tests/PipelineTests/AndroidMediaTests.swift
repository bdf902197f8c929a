import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushPayload
@testable import RichPushImaging
@testable import RichPushHTTP
@testable import RichPushCache
@testable import RichPushPipeline
import TestSupport

/// Each provider shape with an iOS image, an Android image and a shared one: every Android field of the request
/// points at the cache, at a rendition Android's SDKs take (`AndroidDeviceLimits`), and the iOS half is what it was.
final class AndroidMediaTests: PipelineTestCase {
    private static let origin = "https://media.example.com/"

    func testFCMRendersEachPlatformsImageIntoItsOwnField() async throws {
        let (enricher, fetcher, _) = try makeEnricher()
        defer { fetcher.shutdown() }
        let document = """
            {"message":{"token":"t1","notification":{"title":"Sale","body":"Today","image":"\(Self.origin)banner.webp"},
             "apns":{"fcm_options":{"image":"\(Self.origin)hero.jpg"}},
             "android":{"priority":"high","notification":{"image":"\(Self.origin)story1.jpg"}},
             "webpush":{"notification":{"image":"\(Self.origin)hero.jpg"}}}}
            """
        let result = try await enrichOne(enricher, document)
        XCTAssertEqual(result.status, .enriched)
        XCTAssertEqual(result.media.map(\.platform), [.ios, .all, .android])
        XCTAssertEqual(result.media.map(\.variant), [VariantName.attachment, VariantName.attachment, VariantName.bigPicture])
        let request = try XCTUnwrap(result.request)
        try assertRendition(request.value(at: "/message/android/notification/image"), as: .bigPicture, androidOnly: true)
        // Android and the web read notification.image: the attachment, which both decode.
        try assertRendition(request.value(at: "/message/notification/image"), as: .attachment, androidOnly: false)
        XCTAssertEqual(request.value(at: "/message/webpush/notification/image"), .string("\(Self.origin)hero.jpg"),
                       "web push fields stay untouched")
        XCTAssertEqual(request.value(at: "/message/android/priority"), .string("high"))

        // The iOS half is byte for byte what the same request without the Android fields gives.
        let iOSOnly = """
            {"message":{"token":"t1","notification":{"title":"Sale","body":"Today"},
             "apns":{"fcm_options":{"image":"\(Self.origin)hero.jpg"}}}}
            """
        let before = try await enrichOne(enricher, iOSOnly)
        XCTAssertEqual(result.apns.map { $0.payload.serialized() }, before.apns.map { $0.payload.serialized() })
        XCTAssertEqual(request.value(at: "/message/apns"), before.request?.value(at: "/message/apns"))
    }

    func testFCMSharedImageIsTheAttachmentForBothPlatforms() async throws {
        let (enricher, fetcher, _) = try makeEnricher()
        defer { fetcher.shutdown() }
        let result = try await enrichOne(enricher, """
            {"message":{"token":"t1","notification":{"title":"Sale","image":"\(Self.origin)hero.jpg"}}}
            """)
        XCTAssertEqual(result.media.map(\.platform), [.all])
        let cached = try XCTUnwrap(result.media.first?.published?.publicURL)
        XCTAssertEqual(result.request?.value(at: "/message/notification/image"), .string(cached))
        XCTAssertEqual(result.payloadValue(at: "/fcm_options/image"), .string(cached))
        try assertRendition(.string(cached), as: .attachment, androidOnly: false)
    }

    func testOneSignalRendersURLsAndLeavesResourceNamesAndOtherValuesAlone() async throws {
        let (enricher, fetcher, _) = try makeEnricher()
        defer { fetcher.shutdown() }
        let result = try await enrichOne(enricher, """
            {"app_id":"a","contents":{"en":"Hello"},"ios_attachments":{"id1":"\(Self.origin)hero.jpg"},
             "big_picture":"\(Self.origin)hero.jpg","large_icon":"\(Self.origin)logo.png","small_icon":"ic_stat_bell",
             "huawei_large_icon":"ic_launcher","adm_big_picture":12,"huawei_big_picture":"\(Self.origin)banner.webp"}
            """)
        XCTAssertTrue(result.media.allSatisfy(\.isUsable), "\(result.media.map { ($0.pointer, $0.errorMessage) })")
        XCTAssertEqual(result.status, .partial, "the number where a URL belongs is reported, as for iOS")
        let request = try XCTUnwrap(result.request)
        try assertRendition(request.value(at: "/big_picture"), as: .bigPicture, androidOnly: true)
        try assertRendition(request.value(at: "/huawei_big_picture"), as: .bigPicture, androidOnly: true)
        try assertRendition(request.value(at: "/large_icon"), as: .largeIcon, androidOnly: true)
        XCTAssertEqual(request.value(at: "/small_icon"), .string("ic_stat_bell"))
        XCTAssertEqual(request.value(at: "/huawei_large_icon"), .string("ic_launcher"), "a resource name is the app's own")
        XCTAssertEqual(request.value(at: "/adm_big_picture"), .number("12"))
        XCTAssertTrue(result.diagnostics.contains { $0.code == "media_url_invalid" && $0.pointer == "/adm_big_picture" })
        // One source in two variants: an attachment and a big picture, two renditions.
        XCTAssertNotEqual(request.value(at: "/big_picture"), request.value(at: "/ios_attachments/id1"))
        XCTAssertEqual(result.media.filter { $0.platform == .android }.map(\.pointer), ["/big_picture", "/huawei_big_picture", "/large_icon"])
    }

    func testPushwooshAndroidImageThatFailsLeavesItsFieldAndTheJobSaysWhy() async throws {
        let (enricher, fetcher, _) = try makeEnricher()
        defer { fetcher.shutdown() }
        let results = await enricher.enrich(document: Data("""
            {"request":{"application":"APP","auth":"secret","notifications":[
              {"content":"One","ios_attachment":"\(Self.origin)hero.jpg","android_banner":"\(Self.origin)story2.jpg",
               "android_custom_icon":"\(Self.origin)missing.png"},
              {"content":"Two","android_banner":"ftp://media.example.com/x.jpg","android_custom_icon":"\(Self.origin)logo.png"}]}}
            """.utf8))
        XCTAssertEqual(results.count, 2)
        let request = try XCTUnwrap(results[0].request)
        let first = "/request/notifications/0", second = "/request/notifications/1"
        try assertRendition(request.value(at: first + "/android_banner"), as: .bigPicture, androidOnly: true)
        XCTAssertNil(request.value(at: first + "/android_custom_icon"), "the phone could not have shown it either")
        XCTAssertEqual(results[0].status, .partial)
        let failure = try XCTUnwrap(results[0].diagnostics.first { $0.pointer == first + "/android_custom_icon" })
        XCTAssertEqual(failure.code, "media_failed")
        XCTAssertTrue(failure.message.contains("missing.png"), failure.message)
        XCTAssertNil(request.value(at: second + "/android_banner"), "an unfetchable URL leaves the request")
        try assertRendition(request.value(at: second + "/android_custom_icon"), as: .largeIcon, androidOnly: true)
        XCTAssertEqual(request.value(at: "/request/auth"), .string("secret"))
        XCTAssertNotNil(results[0].payloadValue(at: "/attachment"), "the iOS attachment is untouched by Android's failure")
    }

    func testPushfaImageSuitsEveryPlatformItGoesTo() async throws {
        let (enricher, fetcher, _) = try makeEnricher()
        defer { fetcher.shutdown() }
        let android = try await enrichOne(enricher, """
            {"title":"T","body":"B","image_url":"\(Self.origin)hero.jpg","platform":"android"}
            """)
        XCTAssertEqual(android.status, .enriched)
        XCTAssertEqual(android.media.map(\.platform), [.android])
        try assertRendition(android.request?.value(at: "/image_url"), as: .bigPicture, androidOnly: true)
        XCTAssertNil(android.payloadValue(at: "/image"), "no iOS attachment for an Android-only send")

        let both = try await enrichOne(enricher, """
            {"title":"T","body":"B","image_url":"\(Self.origin)hero.jpg"}
            """)
        XCTAssertEqual(both.media.map(\.platform), [.all])
        try assertRendition(both.request?.value(at: "/image_url"), as: .attachment, androidOnly: false)
        XCTAssertEqual(both.request?.value(at: "/image_url"), both.payloadValue(at: "/image"))
    }

    func testStructureCheckKeepsAndroidURLsAndReportsThem() async throws {
        let enricher = Enricher(checkingStructureOnly: EnricherConfiguration())
        let result = try await enrichOne(enricher, """
            {"app_id":"a","contents":{"en":"Hello"},"big_picture":"\(Self.origin)hero.jpg","large_icon":"ftp://x/y.png"}
            """)
        XCTAssertEqual(result.status, .passthrough)
        XCTAssertEqual(result.request?.value(at: "/big_picture"), .string("\(Self.origin)hero.jpg"))
        XCTAssertNil(result.request?.value(at: "/large_icon"))
        XCTAssertEqual(result.media.map(\.variant), [VariantName.bigPicture, VariantName.largeIcon])
    }

    func testOneSourceInThreeVariantsIsFetchedOnce() async throws {
        let origin = try LoopbackOrigin()
        defer { origin.stop() }
        origin.fileRoot = Self.mediaDirectory
        let (enricher, fetcher, _) = try makeEnricher(allowNetworks: ["127.0.0.0/8"])
        defer { fetcher.shutdown() }
        let url = origin.url("/file/once/hero.jpg")
        let result = try await enrichOne(enricher, """
            {"app_id":"a","contents":{"en":"Hello"},"ios_attachments":{"p":"\(url)"},"big_picture":"\(url)","large_icon":"\(url)"}
            """)
        XCTAssertEqual(result.status, .enriched)
        XCTAssertEqual(Set(result.media.map(\.variant)), [VariantName.attachment, VariantName.bigPicture, VariantName.largeIcon])
        XCTAssertEqual(Set(result.media.compactMap(\.published?.publicURL)).count, 3, "three renditions")
        XCTAssertEqual(origin.count("/file/once/hero.jpg"), 1, "one fetch for the three")
    }

    /// `value` is a cached URL whose file is a rendition of `variant` that every Android SDK shows: within the
    /// variant's box and byte budget, under Firebase's limit, decodable; WebP only where iOS never reads it.
    private func assertRendition(_ value: JSONValue?, as variant: ImageVariant, androidOnly: Bool,
                                 file: StaticString = #filePath, line: UInt = #line) throws {
        let url = try XCTUnwrap(value?.stringValue, "no URL", file: file, line: line)
        XCTAssertTrue(url.hasPrefix(Self.publicBase + "/objects/"), url, file: file, line: line)
        let path = temporaryDirectory.appendingPathComponent("cache").appendingPathComponent(String(url.dropFirst(Self.publicBase.count + 1)))
        let bytes = try Data(contentsOf: path)
        XCTAssertLessThanOrEqual(bytes.count, AndroidDeviceLimits.maximumImageBytes, file: file, line: line)
        XCTAssertLessThanOrEqual(bytes.count, try XCTUnwrap(variant.maximumBytes), file: file, line: line)
        let probe = try ImageProbe.probe(bytes)
        XCTAssertLessThanOrEqual(probe.width, variant.width, file: file, line: line)
        XCTAssertLessThanOrEqual(probe.height, variant.height, file: file, line: line)
        XCTAssertTrue(androidOnly ? [.jpeg, .png, .webp].contains(probe.format) : [.jpeg, .png].contains(probe.format),
                      "\(probe.format)", file: file, line: line)
        let decoded = try PerceptualScore.decodeOpaque(bytes, budget: WorkBudget(deadline: .now + .seconds(30)))
        XCTAssertEqual(decoded.width, probe.width, file: file, line: line)
    }
}
