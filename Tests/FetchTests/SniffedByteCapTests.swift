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
        short.decide()
        XCTAssertEqual(short.kind, .image, "three bytes are no ID3 tag")
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
