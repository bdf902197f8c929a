import XCTest
@testable import RichPushImaging

final class ColourSetTests: XCTestCase {
    /// Colours are numbered in the order first seen, a repeat gets its number back, and a new colour past the
    /// limit is refused while known ones still answer; colliding hashes are kept apart.
    func testNumbersColoursInOrderUpToTheLimit() {
        var colours = ColourSet(limit: 3)
        XCTAssertEqual(colours.number(of: 0xFF00_0000), 0)
        XCTAssertEqual(colours.number(of: 0), 1)
        XCTAssertEqual(colours.number(of: 0xFF00_0000), 0)
        XCTAssertEqual(colours.number(of: 0x1234_5678), 2)
        XCTAssertNil(colours.number(of: 0x0101_0101), "a fourth colour")
        XCTAssertEqual(colours.number(of: 0), 1)
        XCTAssertEqual(colours.count, 3)

        // 2,000 distinct colours in a set of 5,000: each keeps its own number, however their hashes collide.
        var many = ColourSet(limit: 5_000)
        let keys = (0..<2_000).map { UInt32($0) &* 0x0001_0003 }
        for (index, key) in keys.enumerated() { XCTAssertEqual(many.number(of: key), index) }
        for (index, key) in keys.enumerated().reversed() { XCTAssertEqual(many.number(of: key), index) }
    }
}
