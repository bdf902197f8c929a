import XCTest
import RichPushCore

/// One log line per key and interval, the next one saying how many were held back.
final class LogThrottleTests: XCTestCase {
    func testOneLinePerKeyAndIntervalWithTheCountHeldBack() {
        let throttle = LogThrottle(interval: .seconds(1))
        let start = ContinuousClock.now
        XCTAssertEqual(throttle.admit("401", now: start), 0)
        XCTAssertNil(throttle.admit("401", now: start + .milliseconds(10)))
        XCTAssertNil(throttle.admit("401", now: start + .milliseconds(990)))
        XCTAssertEqual(throttle.admit("503", now: start + .milliseconds(990)), 0, "each key has its own budget")
        XCTAssertEqual(throttle.admit("401", now: start + .seconds(1)), 2, "the next line says how many were held back")
        XCTAssertNil(throttle.admit("401", now: start + .milliseconds(1500)))
        XCTAssertEqual(throttle.admit("401", now: start + .seconds(5)), 1)
        XCTAssertEqual(throttle.admit("401", now: start + .seconds(7)), 0)
    }
}
