import Foundation
import XCTest
@testable import RichPushCore

final class DecimalStringTests: XCTestCase {
    /// The fast path and the fallback agree with Foundation's formatter, ties and edge values included.
    func testAgreesWithTheFormatter() {
        var generator = SystemRandomNumberGenerator()
        var values: [Double] = [0, 0.04, 0.05, 0.15, 0.25, 0.35, 1.005, 2.675, 9.95, 9.96, 99.95, 75.25, 74.99999,
                                -0.04, -1.25, -3.5, 1e14 + 0.25, 1e15, 1e300, .infinity, -.infinity, .nan,
                                .leastNonzeroMagnitude, 0.5, 1.5, 2.5]
        for _ in 0..<20_000 { values.append(Double.random(in: 0..<200, using: &generator)) }
        for _ in 0..<2_000 { values.append(Double(Int.random(in: 0..<100_000, using: &generator)) / 1000) }
        for value in values {
            for digits in 0...3 {
                XCTAssertEqual(value.decimalString(fractionDigits: digits), String(format: "%.\(digits)f", value),
                               "\(value) with \(digits) digits")
            }
        }
    }

    func testPadsTheFraction() {
        XCTAssertEqual(3.04.decimalString(fractionDigits: 2), "3.04")
        XCTAssertEqual(0.001.decimalString(fractionDigits: 3), "0.001")
        XCTAssertEqual(12.0.decimalString(fractionDigits: 1), "12.0")
        XCTAssertEqual(12.4.decimalString(fractionDigits: 0), "12")
    }
}
