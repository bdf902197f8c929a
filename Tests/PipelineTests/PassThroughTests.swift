import Foundation
import TestSupport
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushPayload
@testable import RichPushImaging
@testable import RichPushHTTP
@testable import RichPushCache
@testable import RichPushPipeline

/// Audio, video and animated GIF attachments are published unchanged (`passed_through`), with the right extension
/// and type; a story page stays a still image.
final class PassThroughTests: PipelineTestCase {
    private var mediaDirectory: URL { temporaryDirectory.appendingPathComponent("media", isDirectory: true) }

    private func makePassThroughEnricher() throws -> (Enricher, Fetcher, FileMediaStore) {
        try FileManager.default.createDirectory(at: mediaDirectory, withIntermediateDirectories: true)
        for (format, bytes) in MediaSamples.all {
            try bytes.write(to: mediaDirectory.appendingPathComponent("sample.\(format)"))
        }
        var fetch = FetchConfiguration()
        fetch.localOrigins = [LocalOrigin(prefix: "https://media.example.com/", directory: mediaDirectory.path)]
        let fetcher = try Fetcher(configuration: fetch)
        let store = try FileMediaStore(configuration: CacheConfiguration(
            root: temporaryDirectory.appendingPathComponent("cache", isDirectory: true), publicBaseURL: Self.publicBase))
        return (Enricher(configuration: EnricherConfiguration(), store: store, fetcher: fetcher), fetcher, store)
    }

    func testAudioAndVideoArePublishedUnchangedWithTheirExtensionAndType() async throws {
        let (enricher, fetcher, store) = try makePassThroughEnricher()
        defer { fetcher.shutdown() }
        let expected: [String: (extension: String, mediaType: String)] = [
            "mp3": ("mp3", "audio/mpeg"), "m4a": ("m4a", "audio/mp4"), "aiff": ("aiff", "audio/aiff"),
            "wav": ("wav", "audio/wav"), "mp4": ("mp4", "video/mp4"),
            "m4v": ("m4v", "video/x-m4v"),
        ]
        for (format, (fileExtension, mediaType)) in expected.sorted(by: { $0.key < $1.key }) {
            // The URL says .jpg: the bytes decide.
            try MediaSamples.all[format]!.write(to: mediaDirectory.appendingPathComponent("\(format).jpg"))
            let result = try await enrichOne(enricher, """
                {"aps":{"alert":{"title":"T","body":"B"}},"image_url":"https://media.example.com/\(format).jpg"}
                """)
            XCTAssertEqual(result.status, .enriched, format)
            let media = try XCTUnwrap(result.media.first)
            XCTAssertEqual(media.status, .passedThrough, format)
            XCTAssertEqual(media.published?.format.rawValue, format)
            XCTAssertNil(media.published?.size?.width, format)
            XCTAssertEqual(media.published?.bytes, MediaSamples.all[format]!.count, format)
            let cachedURL = try XCTUnwrap(media.published?.publicURL)
            XCTAssertTrue(cachedURL.hasSuffix("." + fileExtension), cachedURL)
            XCTAssertEqual(result.payloadValue(at: "/image_url"), .string(cachedURL))
            XCTAssertEqual(AttachmentFormat(name: format)?.mediaType, mediaType)

            let relative = String(cachedURL.dropFirst(Self.publicBase.count + 1))
            let published = try Data(contentsOf: temporaryDirectory.appendingPathComponent("cache/" + relative))
            XCTAssertEqual(published, MediaSamples.all[format], "\(format) must not be re-encoded")
            let json = String(decoding: result.json.serialized(pretty: false), as: UTF8.self)
            XCTAssertTrue(json.contains(#""status":"passed_through""#), json)
        }

        // The second job finds it in the cache.
        let again = try await enrichOne(enricher, #"{"aps":{"alert":{"body":"B"}},"image_url":"https://media.example.com/mp4.jpg"}"#)
        XCTAssertEqual(again.media.first?.status, .cached)
        XCTAssertEqual(again.media.first?.published?.format, .mp4)
        XCTAssertEqual(again.status, .enriched)
        _ = store
    }

    func testAStoryPageRefusesAudioAndVideoButTheAttachmentTakesThem() async throws {
        let (enricher, fetcher, _) = try makePassThroughEnricher()
        defer { fetcher.shutdown() }
        let result = try await enrichOne(enricher, """
            {"aps":{"alert":{"title":"T","body":"B"}},"image_url":"https://media.example.com/sample.mp4",
             "pw_stories":{"pages":[{"image":"https://media.example.com/sample.mp4","title":"One"},
                                    {"image":"https://media.example.com/sample.mp3","title":"Two"}]}}
            """)
        let attachment = try XCTUnwrap(result.media.first { $0.pointer == "/image_url" })
        XCTAssertEqual(attachment.status, .passedThrough)
        let pages = result.media.filter { $0.variant == "story" }
        XCTAssertEqual(pages.count, 2)
        for page in pages {
            XCTAssertEqual(page.status, .failed)
            XCTAssertEqual(page.errorCode, "media_kind_not_accepted")
            XCTAssertTrue(page.errorMessage?.contains("only image is accepted") == true, page.errorMessage ?? "")
        }
        XCTAssertEqual(result.status, .partial)
    }

    func testAnAnimatedGIFOverTheRenderBudgetPassesThrough() async throws {
        let (enricher, fetcher, _) = try makePassThroughEnricher()
        defer { fetcher.shutdown() }
        // 35 frames of 256x256: about 1.29 MB, over the attachment's 400 KB render budget.
        let gif = MediaSamples.animatedGIF(side: 256, frames: 35)
        XCTAssertGreaterThan(gif.count, 1_250_000)
        try gif.write(to: mediaDirectory.appendingPathComponent("big.gif"))
        let result = try await enrichOne(enricher, #"{"aps":{"alert":{"body":"B"}},"image_url":"https://media.example.com/big.gif"}"#)
        let media = try XCTUnwrap(result.media.first)
        XCTAssertEqual(media.status, .passedThrough, media.errorMessage ?? "")
        XCTAssertEqual(media.published?.format, .gif)
        XCTAssertEqual(media.published?.bytes, gif.count)
        XCTAssertEqual(media.published?.size?.width, 256)
        XCTAssertTrue(media.published?.publicURL.hasSuffix(".gif") == true)
        XCTAssertEqual(result.status, .enriched)
    }
}

extension PassThroughTests {
    func testBrokenISOMediaIsRefusedWithItsReason() async throws {
        let (enricher, fetcher, _) = try makePassThroughEnricher()
        defer { fetcher.shutdown() }
        let whole = MediaSamples.isoMedia(brand: "isom", size: 400)
        let cases: [(String, Data, String)] = [
            ("truncated.mp4", whole.prefix(300), "truncated"),
            // A whole 24-byte ftyp box (major brand M4A) and a lone free box: no movie header.
            ("nomovie.m4a", MediaSamples.isoMedia(brand: "M4A ").prefix(24) + Data([0, 0, 0, 8]) + Data("free".utf8), "no moov"),
            ("trailing.mov", MediaSamples.isoMedia(brand: "qt  ") + Data([1, 2, 3]), "stray bytes"),
        ]
        for (name, bytes, reason) in cases {
            try bytes.write(to: mediaDirectory.appendingPathComponent(name))
            let result = try await enrichOne(enricher, """
                {"aps":{"alert":{"body":"B"}},"image_url":"https://media.example.com/\(name)"}
                """)
            let media = try XCTUnwrap(result.media.first)
            XCTAssertEqual(media.status, .failed, name)
            XCTAssertEqual(media.errorCode, "corrupt_media", name)
            XCTAssertTrue(media.errorMessage?.contains(reason) == true, "\(name): \(media.errorMessage ?? "")")
            XCTAssertEqual(result.status, .fallback, name)
        }
    }

    /// Issue 26: a QuickTime movie is published as `.mp4` only when its compatible brands say MP4 (as iPhone exports
    /// do); a QuickTime-only one is refused, since neither Apple's attachment types nor OneSignal take `.mov`.
    func testQuickTimeIsPublishedAsMP4OnlyWhenItIsOne() async throws {
        let (enricher, fetcher, _) = try makePassThroughEnricher()
        defer { fetcher.shutdown() }
        let cases: [(String, Data, AttachmentFormat?)] = [
            ("iphone.mov", MediaSamples.isoMedia(brand: "qt  ", compatible: ["qt  ", "mp42", "isom"]), .mp4),
            ("quicktime.mov", MediaSamples.isoMedia(brand: "qt  ", compatible: ["qt  "]), nil),
        ]
        for (name, bytes, expected) in cases {
            try bytes.write(to: mediaDirectory.appendingPathComponent(name))
            let result = try await enrichOne(enricher, """
                {"aps":{"alert":{"body":"B"}},"image_url":"https://media.example.com/\(name)"}
                """)
            let media = try XCTUnwrap(result.media.first, name)
            if let expected {
                XCTAssertEqual(media.status, .passedThrough, name)
                XCTAssertEqual(media.published?.format, expected, name)
                XCTAssertTrue(media.published?.publicURL.hasSuffix(".mp4") == true, name)
            } else {
                XCTAssertEqual(media.status, .failed, name)
                XCTAssertEqual(media.errorCode, "unsupported_format", name)
                XCTAssertTrue(media.errorMessage?.contains("remux it as .mp4") == true, media.errorMessage ?? "")
            }
        }
    }
}
