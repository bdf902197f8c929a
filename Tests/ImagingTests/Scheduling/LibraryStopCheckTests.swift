import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushImaging

/// The question C libraries ask from inside long calls: stop once the deadline passed or the caller cancelled.
final class LibraryStopCheckTests: XCTestCase {
    func testAnswersFromTheDeadlineAndTheCallersCancellation() {
        let cancellation = BlockingCancellation()
        let running = LibraryStopCheck(WorkBudget(deadline: .now + .seconds(60), cancellation: cancellation))
        XCTAssertEqual(LibraryStopCheck.callback(running.context), 0)
        cancellation.cancel()
        XCTAssertEqual(LibraryStopCheck.callback(running.context), 1)
        XCTAssertEqual(running.stopReason, .cancelled)

        let late = LibraryStopCheck(WorkBudget(deadline: .now - .milliseconds(1)))
        XCTAssertEqual(LibraryStopCheck.callback(late.context), 1)
        XCTAssertEqual(late.stopReason, .deadlineExceeded)
    }

    func testAStopInsideLibpngIsReportedAsCancelled() throws {
        // libpng's first read (of the header, before any row) asks the stop check and returns -2.
        let cancellation = BlockingCancellation()
        cancellation.cancel()
        let png = try ImagingHelpers.data("conformance/png/basn2c08.png")
        XCTAssertThrowsError(try PNGDecoder.decode(png, limits: ImageLimits(),
                                                   budget: WorkBudget(deadline: .now + .seconds(60), cancellation: cancellation))) { error in
            XCTAssertEqual(error as? ImageError, .cancelled)
        }
    }
}
