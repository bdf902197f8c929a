@testable import RichPushImaging
import XCTest

/// The vector Paeth paths (`PNGRowFilter.unfilter`, and `unfilterPaethRowPair` on two rows at once) against the
/// specification's byte-at-a-time reference, on rows whose bytes reach every branch of the predictor and every
/// width the 4-byte loads treat differently.
final class PNGUnfilterTests: XCTestCase {
    private func randomBytes(_ count: Int, seed: inout UInt64) -> [UInt8] {
        (0..<count).map { _ in
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            // Half the bytes near 0 or 255, where the distances tie and wrap.
            let value = UInt8(truncatingIfNeeded: seed >> 56)
            return seed >> 55 & 1 == 0 ? value : (value & 0x80 == 0 ? value & 3 : 252 | value)
        }
    }

    func testPaethOnOneRowMatchesTheReference() {
        var seed: UInt64 = 7
        for bytesPerPixel in [1, 2, 3, 4] {
            for width in [1, 2, 3, 4, 5, 17, 64] {
                let count = width * bytesPerPixel
                for _ in 0..<20 {
                    let above = randomBytes(count, seed: &seed), filtered = randomBytes(count, seed: &seed)
                    var row = filtered
                    row.withUnsafeMutableBufferPointer { row in
                        above.withUnsafeBufferPointer { above in
                            PNGRowFilter.paeth.unfilter(row, previous: above, bytesPerPixel: bytesPerPixel)
                        }
                    }
                    XCTAssertEqual(row, ImagingHelpers.referenceUnfilter(filtered, type: 4, previous: above, bytesPerPixel: bytesPerPixel),
                                   "\(bytesPerPixel) bytes a pixel, \(width) wide")
                }
            }
        }
    }

    func testPaethOnARowPairMatchesTheReferenceRowByRow() {
        var seed: UInt64 = 11
        for bytesPerPixel in [3, 4] {
            for width in [1, 2, 3, 4, 5, 17, 64] {
                let count = width * bytesPerPixel
                for _ in 0..<20 {
                    let above = randomBytes(count, seed: &seed)
                    let firstFiltered = randomBytes(count, seed: &seed), secondFiltered = randomBytes(count, seed: &seed)
                    let expectedFirst = ImagingHelpers.referenceUnfilter(firstFiltered, type: 4, previous: above, bytesPerPixel: bytesPerPixel)
                    let expectedSecond = ImagingHelpers.referenceUnfilter(secondFiltered, type: 4, previous: expectedFirst,
                                                                         bytesPerPixel: bytesPerPixel)
                    // Both rows in one buffer with a filter byte between them, as in an inflated image.
                    var rows = firstFiltered + [4] + secondFiltered
                    rows.withUnsafeMutableBufferPointer { rows in
                        above.withUnsafeBufferPointer { above in
                            PNGRowFilter.unfilterPaethRowPair(rows.baseAddress!, rows.baseAddress! + count + 1, above: above.baseAddress!,
                                                              count: count, bytesPerPixel: bytesPerPixel)
                        }
                    }
                    XCTAssertEqual(Array(rows[..<count]), expectedFirst, "first row, \(bytesPerPixel) bytes a pixel, \(width) wide")
                    XCTAssertEqual(rows[count], 4, "the filter byte between the rows is left alone")
                    XCTAssertEqual(Array(rows[(count + 1)...]), expectedSecond, "second row, \(bytesPerPixel) bytes a pixel, \(width) wide")
                }
            }
        }
    }
}
