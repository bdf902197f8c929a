import Foundation
import TestSupport
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushImaging
@testable import RichPushHTTP
@testable import RichPushCache
@testable import RichPushPipeline

/// The renderer goes by the format the fetcher sniffed (`FetchedMedia.format`), never by a second look at the
/// body: bytes labelled with another format than their own are judged as that format.
final class FetchedFormatRenderingTests: XCTestCase {
    private func production(of body: Data, labelled format: AttachmentFormat?) async throws -> CacheProduction {
        let fetched = FetchedMedia(status: 200, finalURL: "https://origin.test/media", body: body, format: format)
        return try await CachedMediaRenderer.production(
            from: fetched, source: "https://origin.test/media", variant: .attachment,
            acceptedKinds: Set(AttachmentKind.allCases), deadline: .now + .seconds(30), imaging: ImagePipeline())
    }

    private func failure(_ production: CacheProduction, file: StaticString = #filePath, line: UInt = #line) -> (String, String)? {
        guard case .failure(let error) = production else {
            XCTFail("expected a failure, got \(production)", file: file, line: line)
            return nil
        }
        return (error.code.rawValue, error.description)
    }

    func testTheFetchersFormatDecidesHowTheBodyIsRead() async throws {
        let jpeg = try Data(contentsOf: fixture("imaging/orientation_1.jpg"))
        guard case .object(_, let format, _, _, _, _, _, _, _, _) = try await production(of: jpeg, labelled: .jpeg) else {
            return XCTFail("a JPEG labelled JPEG renders")
        }
        XCTAssertEqual(format, .jpeg)

        let asPNG = failure(try await production(of: jpeg, labelled: .png))
        XCTAssertEqual(asPNG?.0, "corrupt_image", "a JPEG the fetcher called PNG is read as a PNG")
        XCTAssertTrue(asPNG?.1.contains("PNG signature missing") ?? false, asPNG?.1 ?? "")

        let unrecognised = failure(try await production(of: jpeg, labelled: nil))
        XCTAssertEqual(unrecognised?.0, "unsupported_format", "nothing sniffs the body again when the fetcher found no format")

        let movie = failure(try await production(of: MediaSamples.isoMedia(brand: "mp42"), labelled: .jpeg))
        XCTAssertEqual(movie?.0, "corrupt_image", "a movie the fetcher called JPEG is not passed through")

        guard case .object(let bytes, let passed, _, _, _, _, _, _, _, _) = try await production(
            of: MediaSamples.isoMedia(brand: "qt  ", compatible: ["qt  ", "isom"]), labelled: .mp4)
        else { return XCTFail("an MP4 passes through") }
        XCTAssertEqual(passed, .mp4)
        XCTAssertEqual(bytes, MediaSamples.isoMedia(brand: "qt  ", compatible: ["qt  ", "isom"]))
    }
}
