import Foundation
import RichPush
import TestSupport
import XCTest

/// Each body is capped by the kind its first bytes show (audio, video, image), during the transfer, and a kind the
/// request does not accept stops at its first bytes.
final class KindByteCapTests: XCTestCase {
    /// Small caps so that the endless bodies hit them at once: images 200 KB, audio 100 KB, video 300 KB.
    private func cappedFetcher(_ adjust: (inout FetchConfiguration) -> Void = { _ in }) throws -> Fetcher {
        try makeFetcher {
            $0.maximumBytes = 200_000
            $0.maximumAudioBytes = 100_000
            $0.maximumVideoBytes = 300_000
            adjust(&$0)
        }
    }

    func testEndlessBodiesStopAtTheirKindsCap() async throws {
        let origin = try origin(), fetcher = try cappedFetcher()
        let expected: [(String, FetchError)] = [
            ("mp3", .tooLargeForKind(url: origin.url("/endless-typed/mp3"), kind: .audio, limit: 100_000)),
            ("wav", .tooLargeForKind(url: origin.url("/endless-typed/wav"), kind: .audio, limit: 100_000)),
            ("mp4", .tooLargeForKind(url: origin.url("/endless-typed/mp4"), kind: .video, limit: 300_000)),
            ("mov", .tooLargeForKind(url: origin.url("/endless-typed/mov"), kind: .video, limit: 300_000)),
        ]
        for (format, error) in expected {
            let (failure, elapsed) = await expectFailure(fetcher, origin.url("/endless-typed/\(format)"))
            XCTAssertEqual(failure, error, format)
            XCTAssertEqual(failure?.code, "too_large", format)
            XCTAssertLessThan(elapsed, .seconds(3), format)
        }
        // Bytes of no known attachment format (here an endless body of 0x01) get the image cap.
        let (failure, _) = await expectFailure(fetcher, origin.url("/endless-chunked"))
        XCTAssertEqual(failure, .tooLarge(url: origin.url("/endless-chunked"), limit: 200_000))
    }

    func testEachKindIsFetchedUpToItsOwnCap() async throws {
        let origin = try origin(), fetcher = try cappedFetcher()
        // A 250 KB video is over the image and audio caps and still arrives whole.
        let video = try await fetch(fetcher, origin.url("/typed/mp4/250000"))
        XCTAssertEqual(video.body.count, 250_000)
        XCTAssertEqual(video.body.prefix(MediaSamples.all["mp4"]!.count), MediaSamples.all["mp4"]!)
        let audio = try await fetch(fetcher, origin.url("/typed/m4a/90000"))
        XCTAssertEqual(audio.body.count, 90_000)
    }

    func testAnnouncedLengthOverTheKindsCapStopsAtTheFirstBytes() async throws {
        let origin = try origin(), fetcher = try cappedFetcher()
        // 250 KB is under the largest cap (video), so the headers pass; the first bytes show audio, capped at 100 KB.
        let (failure, elapsed) = await expectFailure(fetcher, origin.url("/typed/mp3/250000"))
        XCTAssertEqual(failure, .tooLargeForKind(url: origin.url("/typed/mp3/250000"), kind: .audio, limit: 100_000))
        XCTAssertLessThan(elapsed, .seconds(1))
        // Over every cap: refused from the headers alone, against the largest.
        let (huge, _) = await expectFailure(fetcher, origin.url("/typed/mp4/400000"))
        XCTAssertEqual(huge, .tooLarge(url: origin.url("/typed/mp4/400000"), limit: 300_000))
    }

    func testAKindTheRequestDoesNotAcceptIsRefusedAtItsFirstBytes() async throws {
        let origin = try origin(), fetcher = try cappedFetcher()
        for format in ["mp3", "mp4"] {
            let url = origin.url("/endless-typed/\(format)")
            let started = ContinuousClock.now
            do {
                _ = try await fetcher.fetch(FetchRequest(url: url, deadline: .now + .seconds(5), acceptedKinds: [.image]))
                XCTFail("a story page must not accept \(format)")
            } catch {
                XCTAssertEqual(error.code, "media_kind_not_accepted")
                XCTAssertTrue(error.description.contains("only image is accepted"), error.description)
            }
            XCTAssertLessThan(ContinuousClock.now - started, .seconds(2))
        }
        // With images only, the largest cap is the image cap: announced lengths over it fail from the headers.
        let (failure, _) = await expectFailureAcceptingImagesOnly(fetcher, origin.url("/typed/mp4/250000"))
        XCTAssertEqual(failure, .tooLarge(url: origin.url("/typed/mp4/250000"), limit: 200_000))
    }

    func testLocalOriginFilesAreCappedByKind() async throws {
        let directory = try makeTemporaryDirectory("kinds")
        try (MediaSamples.mp3(frames: 300)).write(to: directory.appendingPathComponent("long.mp3"))   // ~125 KB
        try MediaSamples.isoMedia(brand: "isom", size: 250_000).write(to: directory.appendingPathComponent("clip.mp4"))
        let fetcher = try cappedFetcher { $0.localOrigins = [try! LocalOrigin(parsing: "https://media.example.com/=\(directory.path)")] }
        let (failure, _) = await expectFailure(fetcher, "https://media.example.com/long.mp3")
        XCTAssertEqual(failure, .tooLargeForKind(url: "https://media.example.com/long.mp3", kind: .audio, limit: 100_000))
        let clip = try await fetch(fetcher, "https://media.example.com/clip.mp4")
        XCTAssertEqual(clip.body.count, 250_000)
        XCTAssertEqual(clip.contentType, "video/mp4")
        do {
            _ = try await fetcher.fetch(FetchRequest(url: "https://media.example.com/clip.mp4", deadline: .now + .seconds(5),
                                                     acceptedKinds: [.image]))
            XCTFail("a story page must not accept video")
        } catch {
            XCTAssertEqual(error.code, "media_kind_not_accepted")
        }
    }

    private func expectFailureAcceptingImagesOnly(_ fetcher: Fetcher, _ url: String) async -> (FetchError?, Duration) {
        let started = ContinuousClock.now
        do {
            _ = try await fetcher.fetch(FetchRequest(url: url, deadline: started + .seconds(5), acceptedKinds: [.image]))
            XCTFail("expected failure")
            return (nil, ContinuousClock.now - started)
        } catch {
            return (error, ContinuousClock.now - started)
        }
    }
}
