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

/// Issue #20's story author: a HEIC page (from an iPhone) and an AVIF attachment (from a CDN) go through fetch,
/// render and cache like any image, and come out as JPEG under the story's and attachment's variants.
final class HEIFPipelineTests: PipelineTestCase {
    func testHEICStoryPageAndAVIFAttachmentArePublishedAsJPEG() async throws {
        var fetch = FetchConfiguration()
        let imaging = packageRoot.appendingPathComponent("Fixtures/imaging").path
        fetch.localOrigins = [try LocalOrigin(parsing: "https://photos.example.com/=\(imaging)")]
        let fetcher = try Fetcher(configuration: fetch)
        defer { fetcher.shutdown() }
        let store = try FileMediaStore(configuration: CacheConfiguration(
            root: temporaryDirectory.appendingPathComponent("cache", isDirectory: true), publicBaseURL: Self.publicBase))
        let enricher = Enricher(configuration: EnricherConfiguration(jobDeadline: .seconds(20)), store: store, fetcher: fetcher)
        let job = """
            {"aps":{"alert":{"title":"T","body":"B"}},"image_url":"https://photos.example.com/alpha.avif",
             "pw_stories":{"pages":[{"image":"https://photos.example.com/rotated.heic","title":"From an iPhone"}]}}
            """
        let result = try await enrichOne(enricher, job)
        XCTAssertEqual(result.status, .enriched, "\(result.media.map { "\($0.source): \($0.errorCode ?? "ok") \($0.errorMessage ?? "")" })")
        let bySource = Dictionary(uniqueKeysWithValues: result.media.map { ($0.source, $0) })
        let page = try XCTUnwrap(bySource["https://photos.example.com/rotated.heic"])
        XCTAssertEqual(page.status, .rendered)
        XCTAssertEqual(page.published?.format, .jpeg)
        // The upright 64x48 cropped to the story's 2:3; on its side (48x64, irot and EXIF both applied) it would be 43x64.
        XCTAssertEqual([page.published?.size?.width, page.published?.size?.height], [32, 48])
        XCTAssertTrue(page.published?.publicURL.hasSuffix(".jpg") == true)
        let attachment = try XCTUnwrap(bySource["https://photos.example.com/alpha.avif"])
        XCTAssertEqual(attachment.status, .rendered)
        XCTAssertEqual(attachment.published?.format, .png, "translucent AVIF becomes PNG")
        XCTAssertEqual([attachment.published?.size?.width, attachment.published?.size?.height], [32, 32])
    }
}
