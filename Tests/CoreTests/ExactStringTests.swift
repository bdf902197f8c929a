import XCTest
@testable import RichPushCore

/// `ExactString` equals by bytes, on both of its paths (names up to 16 bytes compared in place, longer ones with
/// `memcmp`), and hashes consistently with that.
final class ExactStringTests: XCTestCase {
    func testEqualityIsByBytesOnShortAndLongStrings() {
        for prefix in ["", "https://media.example.com/images/"] {
            let composed = prefix + "caf\u{E9}", decomposed = prefix + "cafe\u{301}"
            XCTAssertEqual(composed, decomposed, "the premise: Swift's String == is canonical equivalence")
            XCTAssertNotEqual(ExactString(composed), ExactString(decomposed), prefix)
            XCTAssertEqual(Set([ExactString(composed), ExactString(decomposed)]).count, 2, prefix)
            // The same bytes in another string object are equal, and hash alike.
            let copy = String(decoding: Array(composed.utf8), as: UTF8.self)
            XCTAssertEqual(ExactString(composed), ExactString(copy), prefix)
            XCTAssertEqual(ExactString(composed).hashValue, ExactString(copy).hashValue, prefix)
            // One byte apart at the end, at equal length.
            XCTAssertFalse(ExactString.same(prefix + "abcx", prefix + "abcy"), prefix)
            XCTAssertTrue(ExactString.same(prefix + "abcx", prefix + "abcx"), prefix)
        }
        XCTAssertTrue(ExactString.same("", ""))
        XCTAssertFalse(ExactString.same("", "a"))
        XCTAssertEqual([ExactString("/a"): 1]["/a"], 1, "a literal is an ExactString")
    }
}
