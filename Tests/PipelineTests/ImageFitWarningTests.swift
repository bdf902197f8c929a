import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushPayload
@testable import RichPushImaging
@testable import RichPushHTTP
@testable import RichPushCache
@testable import RichPushPipeline

/// `story_crop_heavy` and `image_upscaled`: computed from the source size the render saw, and from the cache record
/// on a hit, so a warm cache warns as a cold one does.
final class ImageFitWarningTests: PipelineTestCase {
    func testLandscapeStoryIsCropHeavyAndSmallLogoIsUpscaledOnColdAndWarmCache() async throws {
        let (enricher, fetcher, _) = try makeEnricher()
        defer { fetcher.shutdown() }
        // hero.jpg is 1600×1200, logo.png 500×500, story1.jpg 1200×1800 (exactly 2:3, larger than the box).
        let document = """
            {"aps":{"alert":{"title":"T","body":"B"}},"pw_stories":{"pages":[
              {"image":"https://media.example.com/hero.jpg"},
              {"image":"https://media.example.com/logo.png"},
              {"image":"https://media.example.com/story1.jpg"}]}}
            """
        let cold = try await enrichOne(enricher, document)
        let warm = try await enrichOne(enricher, document)
        XCTAssertEqual(warm.media.map(\.status), [.cached, .cached, .cached])
        for result in [cold, warm] {
            XCTAssertEqual(result.status, .enriched, "warnings change nothing that is sent")
            let warnings = result.diagnostics.filter {
                [DiagnosticCode.storyCropHeavy.rawValue, DiagnosticCode.imageUpscaled.rawValue].contains($0.code)
            }
            XCTAssertEqual(warnings.map(\.code), ["story_crop_heavy", "image_upscaled"], "\(result.diagnostics)")
            XCTAssertEqual(warnings.map(\.pointer), ["/pw_stories/pages/0/image", "/pw_stories/pages/1/image"])
            XCTAssertEqual(warnings.map(\.severity), [.warning, .warning])
            XCTAssertTrue(warnings[0].message.contains("cuts away 50% of this 1600×1200 image"), warnings[0].message)
            XCTAssertTrue(warnings[0].message.contains("middle 800×1200"), warnings[0].message)
            XCTAssertTrue(warnings[1].message.contains("500×500 image is 3.2× smaller than the story variant's 1080×1620"), warnings[1].message)
            XCTAssertEqual(result.media[0].published?.sourceSize, PixelSize(width: 1600, height: 1200))
        }
        let json = try XCTUnwrap(cold.json.value(at: "/media/1")?.objectValue)
        XCTAssertEqual(json["source_width"], .number("500"))
        XCTAssertEqual(json["source_height"], .number("500"))
    }

    func testAttachmentWarnsOnlyWhenUpscaledSinceContainCropsNothing() async throws {
        let (enricher, fetcher, _) = try makeEnricher()
        defer { fetcher.shutdown() }
        let landscape = try await enrichOne(enricher, #"{"aps":{"alert":{"title":"T","body":"B"}},"image_url":"https://media.example.com/hero.jpg"}"#)
        XCTAssertFalse(landscape.diagnostics.contains { $0.code == "story_crop_heavy" || $0.code == "image_upscaled" }, "\(landscape.diagnostics)")
        let logo = try await enrichOne(enricher, #"{"aps":{"alert":{"title":"T","body":"B"}},"image_url":"https://media.example.com/logo.png"}"#)
        let upscaled = try XCTUnwrap(logo.diagnostics.first { $0.code == "image_upscaled" })
        XCTAssertTrue(upscaled.message.contains("2.1× smaller than the attachment variant's 1038×1038"), upscaled.message)
    }

    /// The memo answers what the computation gives, each result at its own pointer, whatever result asked first.
    func testMemoGivesEachResultTheComputedWarningsAtItsOwnPointer() {
        let memo = ImageFitWarnings.Memo()
        for round in 0..<2 {
            for (index, size) in [PixelSize(width: 1600, height: 1200), PixelSize(width: 500, height: 500), PixelSize(width: 1200, height: 1800)].enumerated() {
                for variant in [ImageVariant.story, .attachment] {
                    let media = MediaResult(
                        pointer: "/pw_stories/pages/\(index + round)/image", source: "https://a.test/x.jpg", variant: variant.name,
                        outcome: .published(PublishedMedia(publicURL: "https://cdn.test/x.jpg", format: .jpeg, bytes: 1,
                                                           size: PixelSize(width: 1080, height: 1620), sourceSize: size), .rendered),
                        milliseconds: 0)
                    let computed = ImageFitWarnings.diagnostics(for: media, variant: variant)
                    XCTAssertEqual(memo.diagnostics(for: media, variant: variant), computed)
                    XCTAssertTrue(computed.allSatisfy { $0.pointer == media.pointer })
                }
            }
        }
        XCTAssertEqual(memo.count, 6)
        let small = ImageFitWarnings.Memo(capacity: 2)
        for width in 1...5 {
            let media = MediaResult(
                pointer: "/image", source: "https://a.test/x.jpg", variant: "story",
                outcome: .published(PublishedMedia(publicURL: "https://cdn.test/x.jpg", format: .jpeg, bytes: 1,
                                                   size: PixelSize(width: 1080, height: 1620), sourceSize: PixelSize(width: width * 100, height: 100)), .rendered),
                milliseconds: 0)
            XCTAssertEqual(small.diagnostics(for: media, variant: .story), ImageFitWarnings.diagnostics(for: media, variant: .story))
            XCTAssertLessThanOrEqual(small.count, 2, "the memo starts over at its capacity")
        }
    }

    func testThresholdsAreExclusiveAndNeedTheSourceSize() {
        func result(_ size: PixelSize?) -> MediaResult {
            MediaResult(pointer: "/pw_stories/pages/0/image", source: "https://a.test/x.jpg", variant: "story",
                        outcome: .published(PublishedMedia(publicURL: "https://cdn.test/x.jpg", format: .jpeg, bytes: 1,
                                                           size: PixelSize(width: 1080, height: 1620), sourceSize: size), .rendered),
                        milliseconds: 0)
        }
        // 1080×1620 / 1.5 = 720×1080: exactly 1.5× is no warning; a 1:1 image loses a third to a 2:3 crop.
        XCTAssertEqual(ImageFitWarnings.diagnostics(for: result(PixelSize(width: 720, height: 1080)), variant: .story), [])
        XCTAssertEqual(ImageFitWarnings.diagnostics(for: result(PixelSize(width: 1200, height: 1200)), variant: .story), [])
        XCTAssertEqual(ImageFitWarnings.diagnostics(for: result(PixelSize(width: 719, height: 1078)), variant: .story).map(\.code), ["image_upscaled"])
        // 3:2 keeps (2/3)/(3/2) = 44%: 56% is cut.
        XCTAssertEqual(ImageFitWarnings.diagnostics(for: result(PixelSize(width: 3000, height: 2000)), variant: .story).map(\.code), ["story_crop_heavy"])
        XCTAssertEqual(ImageFitWarnings.diagnostics(for: result(nil), variant: .story), [])
    }
}
