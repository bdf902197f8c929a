import Foundation
import RichPush
import TestSupport
import XCTest

/// The fetcher sniffs each body once, as it arrives, and `FetchedMedia.format` carries that verdict on: over the
/// network and from a local origin alike, including formats that need more than the 12 bytes the kind needs.
final class FetchedFormatTests: XCTestCase {
    /// Name → bytes and the format the fetcher must report (nil: no format of the table).
    private func samples() throws -> [(String, Data, AttachmentFormat?)] {
        [
            ("movie.mp4", MediaSamples.isoMedia(brand: "qt  ", compatible: ["qt  ", "isom", "mp42"]), .mp4),
            ("movie.mov", MediaSamples.isoMedia(brand: "qt  ", compatible: ["qt  "]), .mov),
            ("photo.heic", try Data(contentsOf: fixture("imaging/photo.heic")), .heic),
            ("photo.avif", try Data(contentsOf: fixture("imaging/photo.avif")), .avif),
            ("icc.webp", try Data(contentsOf: fixture("imaging/icc_srgb.webp")), .webp),
            ("sound.mp3", MediaSamples.mp3(), .mp3),
            ("page.html", Data("<!doctype html><html></html>".utf8), nil),
        ]
    }

    func testNetworkAndLocalFetchesCarryTheSniffedFormat() async throws {
        let directory = try makeTemporaryDirectory("fetched-format")
        for (name, bytes, _) in try samples() { try bytes.write(to: directory.appendingPathComponent(name)) }
        let origin = try origin()
        let previousRoot = origin.fileRoot
        origin.fileRoot = directory
        defer { origin.fileRoot = previousRoot }
        let fetcher = try makeFetcher {
            $0.localOrigins = [LocalOrigin(prefix: "https://media.example.com/", directory: directory.path)]
        }
        defer { fetcher.shutdown() }
        for (name, bytes, format) in try samples() {
            let network = try await fetch(fetcher, origin.url("/file/format/\(name)"))
            XCTAssertEqual(network.body, bytes, name)
            XCTAssertEqual(network.format, format, "\(name) over HTTP")
            let local = try await fetch(fetcher, "https://media.example.com/\(name)")
            XCTAssertEqual(local.format, format, "\(name) from a local origin")
        }
    }
}
