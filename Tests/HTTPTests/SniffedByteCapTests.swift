import Foundation
import TestSupport
import XCTest

import RichPush
@testable import RichPushCore
@testable import RichPushHTTP

/// The cap of one body follows the kind its first bytes show, however the bytes are split into writes.
final class SniffedByteCapTests: XCTestCase {
    private let limits: [AttachmentKind: Int] = [.image: 200, .audio: 100, .video: 300]

    private func observe(_ cap: inout SniffedByteCap, _ bytes: Data) -> Bool {
        bytes.withUnsafeBytes { cap.observe($0) }
    }

    func testTheLargestCapAppliesUntilTwelveBytesHaveArrivedOneAtATime() {
        var cap = SniffedByteCap(limits: limits)
        let mp3 = MediaSamples.mp3()
        for index in 0..<11 {
            XCTAssertFalse(observe(&cap, mp3[index..<index + 1]))
            XCTAssertNil(cap.kind)
            XCTAssertEqual(cap.current, 300, "before the kind is known, the largest cap")
        }
        XCTAssertTrue(observe(&cap, mp3[11..<12]), "the twelfth byte decides")
        XCTAssertEqual(cap.kind, .audio)
        XCTAssertEqual(cap.current, 100)
        XCTAssertFalse(observe(&cap, mp3[12...]), "decided once")
        cap.reset()
        XCTAssertNil(cap.kind)
        XCTAssertEqual(cap.current, 300)
    }

    func testUnknownBytesGetTheImageCapAndAShortBodyIsDecidedAtItsEnd() {
        var html = SniffedByteCap(limits: limits)
        XCTAssertTrue(observe(&html, Data("<!doctype html><html>".utf8)))
        XCTAssertEqual(html.kind, .image)
        XCTAssertEqual(html.current, 200)

        var short = SniffedByteCap(limits: limits)
        XCTAssertFalse(observe(&short, Data("ID3".utf8)))
        XCTAssertNil(short.finish(), "three bytes are no ID3 tag")
        XCTAssertEqual(short.kind, .image, "decided at the end of the body")
    }

    /// The kind is decided at 12 bytes; the format the fetcher hands on needs the `ftyp` box's compatible brands,
    /// which come later, one byte at a time here.
    func testTheFormatComesFromTheCompatibleBrandsAfterTheKind() {
        let iPhoneMovie = MediaSamples.isoMedia(brand: "qt  ", compatible: ["qt  ", "isom", "mp42"])
        let heif = MediaSamples.isoMedia(brand: "isoz", compatible: ["mif1", "avif"])
        for (bytes, kind, format) in [(iPhoneMovie, AttachmentKind.video, AttachmentFormat.mp4), (heif, .image, .avif)] {
            var cap = SniffedByteCap(limits: limits)
            for index in bytes.indices { _ = observe(&cap, bytes[index..<index + 1]) }
            XCTAssertEqual(cap.kind, kind)
            XCTAssertEqual(cap.finish(), format)
            XCTAssertEqual(AttachmentSniffer.format(ofFileStartingWith: Array(bytes.prefix(12)))?.kind ?? .image, kind,
                           "12 bytes already give the kind")
        }
    }

    func testAKindOutsideTheAcceptedOnesIsRefused() {
        var cap = SniffedByteCap(limits: [.image: 200])
        XCTAssertEqual(cap.ceiling, 200)
        XCTAssertTrue(observe(&cap, MediaSamples.isoMedia(brand: "mp42")))
        XCTAssertEqual(cap.kind, .video)
        XCTAssertTrue(cap.isRefused)
        XCTAssertEqual(FetchConfiguration().byteLimits(accepting: []), [.image: 10 * 1024 * 1024], "nothing accepted means images")
    }
}
