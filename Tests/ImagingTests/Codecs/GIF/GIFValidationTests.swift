import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushImaging

/// GIFs pass through unchanged only after giflib has checked their frames, not just their screen descriptor.
final class GIFValidationTests: XCTestCase {
    private func assertRejected(_ bytes: [UInt8], code: String, mentioning text: String, limits: ImageLimits = ImageLimits(),
                                file: StaticString = #filePath, line: UInt = #line) {
        let pipeline = ImagePipeline(limits: limits)
        XCTAssertThrowsError(try pipeline.renderSynchronously(Data(bytes), as: .attachment, budget: ImagingHelpers.farBudget),
                             file: file, line: line) { error in
            XCTAssertEqual((error as? ImageError)?.code.rawValue, code, "\(error)", file: file, line: line)
            XCTAssertTrue("\(error)".contains(text), "\(error)", file: file, line: line)
        }
    }

    func testThirtyFiveByteGIFWhoseFrameDeclares65535SquareOnAOnePixelScreenIsCorrupt() {
        var gif = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0] + [0, 0, 0, 255, 255, 255]
        gif += [0x2C, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0] + [2, 2, 0x4C, 0x01, 0] + [0x3B]
        XCTAssertEqual(gif.count, 35)
        XCTAssertEqual(try ImageProbe.probe(Data(gif)).width, 1)
        assertRejected(gif, code: "corrupt_image", mentioning: "65535x65535 at (0, 0), not within its 1x1 screen")
    }

    func testFrameReachingPastTheScreenEdgeIsCorrupt() {
        let gif = ImagingHelpers.gif(screenWidth: 10, screenHeight: 10, frames: [(0, 0, 10, 10), (5, 6, 5, 5)])
        assertRejected(gif, code: "corrupt_image", mentioning: "frame 2 is 5x5 at (5, 6)")
    }

    func testFrameCountIsCapped() {
        let frames = Array(repeating: (left: 0, top: 0, width: 1, height: 1), count: ImageLimits.maximumGIFFrames + 1)
        let gif = ImagingHelpers.gif(screenWidth: 1, screenHeight: 1, frames: frames)
        assertRejected(gif, code: "animation_too_large", mentioning: "more than 1000 frames")
        XCTAssertNoThrow(try ImagingHelpers.render(Data(ImagingHelpers.gif(screenWidth: 1, screenHeight: 1,
                                                                          frames: Array(frames.dropLast()))), .attachment))
    }

    func testPixelsOfAllFramesAreCapped() {
        // 10 x maximumPixels (100) = 1000 pixels: ten full 10x10 frames fit, eleven do not.
        let limits = ImageLimits(maximumPixels: 100)
        let frame = (left: 0, top: 0, width: 10, height: 10)
        assertRejected(ImagingHelpers.gif(screenWidth: 10, screenHeight: 10, frames: Array(repeating: frame, count: 11)),
                       code: "animation_too_large", mentioning: "hold 1100 pixels, more than 1000", limits: limits)
        let ten = ImagingHelpers.gif(screenWidth: 10, screenHeight: 10, frames: Array(repeating: frame, count: 10))
        XCTAssertNoThrow(try ImagePipeline(limits: limits).renderSynchronously(Data(ten), as: .attachment, budget: ImagingHelpers.farBudget))
    }

    func testFirstFrameMustDecodeCompletely() {
        // The LZW data holds 30 of the frame's 100 pixels.
        let short = ImagingHelpers.gif(screenWidth: 10, screenHeight: 10, frames: [(0, 0, 10, 10)], pixelCount: 30)
        assertRejected(short, code: "corrupt_image", mentioning: "GIF:")
        // A file cut inside the first frame's data.
        let whole = ImagingHelpers.gif(screenWidth: 40, screenHeight: 40, frames: [(0, 0, 40, 40)])
        assertRejected(Array(whole.prefix(whole.count / 2)), code: "corrupt_image", mentioning: "GIF:")
    }

    func testValidAnimationPassesThroughUnchangedEvenWithoutItsTrailer() throws {
        let gif = ImagingHelpers.gif(screenWidth: 20, screenHeight: 10, frames: [(0, 0, 20, 10), (4, 2, 8, 8), (0, 0, 20, 10)])
        let rendered = try ImagingHelpers.render(Data(gif), .attachment)
        XCTAssertEqual(rendered.bytes, Data(gif))
        XCTAssertEqual([rendered.width, rendered.height], [20, 10])
        XCTAssertTrue(rendered.warnings.contains("GIF (3 frames) passed through unchanged"), "\(rendered.warnings)")
        XCTAssertNoThrow(try ImagingHelpers.render(Data(gif.dropLast()), .attachment))
    }

    func testFixtureAnimationValidates() throws {
        // The gif fuzz target's seed (Fixtures/imaging/make_fixtures.py).
        let bytes = try ImagingHelpers.data("imaging/animated.gif")
        XCTAssertEqual(try GIFValidator.validate(bytes, limits: ImageLimits(), budget: ImagingHelpers.farBudget), 2)
        XCTAssertTrue(try ImageProbe.probe(bytes).isAnimated)
    }

    func testDeadlineStopsValidation() {
        let gif = ImagingHelpers.gif(screenWidth: 10, screenHeight: 10, frames: [(0, 0, 10, 10)])
        XCTAssertThrowsError(try GIFValidator.validate(Data(gif), limits: ImageLimits(),
                                                       budget: WorkBudget(deadline: .now - .milliseconds(1)))) { error in
            XCTAssertEqual(error as? ImageError, .deadlineExceeded)
        }
    }
}
