import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushImaging

final class OrientationAndColourTests: XCTestCase {
    private func assertColour(_ actual: [Int], _ expected: [Int], tolerance: Int = 40, _ message: String,
                              file: StaticString = #filePath, line: UInt = #line) {
        let worst = zip(actual, expected).map { abs($0 - $1) }.max() ?? 0
        XCTAssertLessThanOrEqual(worst, tolerance, "\(message): \(actual) vs \(expected)", file: file, line: line)
    }

    /// Fixtures store a 64x48 image transformed so that each EXIF orientation makes it upright again
    /// (made by Fixtures/imaging/make_fixtures.py, checked there against Pillow's exif_transpose).
    func testAllEightOrientationsComeOutUpright() throws {
        for orientation in 1...8 {
            let bytes = try ImagingHelpers.data("imaging/orientation_\(orientation).jpg")
            XCTAssertEqual(try ImageProbe.probe(bytes).orientation, orientation)
            let rendered = try ImagingHelpers.render(bytes, .attachment)
            XCTAssertEqual([rendered.width, rendered.height], [64, 48], "orientation \(orientation)")
            let output = try ImageProbe.probe(rendered.bytes)
            XCTAssertEqual(output.orientation, 1, "no orientation tag survives")
            let image = try ImagingHelpers.decodeRGBA(rendered.bytes)
            assertColour(ImagingHelpers.pixel(image, 3, 3), [255, 0, 0, 255], "top-left, orientation \(orientation)")
            assertColour(ImagingHelpers.pixel(image, 60, 3), [0, 255, 0, 255], "top-right, orientation \(orientation)")
            assertColour(ImagingHelpers.pixel(image, 3, 44), [0, 0, 255, 255], "bottom-left, orientation \(orientation)")
            assertColour(ImagingHelpers.pixel(image, 60, 44), [255, 255, 255, 255], "bottom-right, orientation \(orientation)")
        }
    }

    func testOrientationIsAppliedAfterResizeIntoARotatedBox() throws {
        let bytes = try ImagingHelpers.data("imaging/orientation_6.jpg")
        let variant = ImageVariant(name: "small", width: 32, height: 16, fit: .cover)
        let rendered = try ImagingHelpers.render(bytes, variant)
        XCTAssertEqual([rendered.width, rendered.height], [32, 16])
    }

    func testCMYKJPEGColoursMatchTheRGBOriginal() throws {
        let cmyk = try ImagingHelpers.data("imaging/cmyk.jpg")
        let original = try ImagingHelpers.decodeRGBA(try ImagingHelpers.data("imaging/cmyk_source.png"))
        let decoded = try ImagingHelpers.decodeRGBA(cmyk)
        XCTAssertEqual([decoded.width, decoded.height], [original.width, original.height])
        for patch in 0..<16 {
            let x = (patch % 4) * 16 + 8, y = (patch / 4) * 16 + 8
            assertColour(ImagingHelpers.pixel(decoded, x, y), ImagingHelpers.pixel(original, x, y), tolerance: 12, "patch \(patch)")
        }
        let rendered = try ImagingHelpers.render(cmyk, .attachment)
        XCTAssertEqual(rendered.format, .jpeg)
    }

    func testRGBICCProfileIsCarriedIntoTheOutput() throws {
        let rendered = try ImagingHelpers.render(try ImagingHelpers.data("imaging/icc_srgb.jpg"), .attachment)
        XCTAssertTrue(rendered.source.hasICCProfile)
        XCTAssertTrue(try ImageProbe.probe(rendered.bytes).hasICCProfile)
        let webp = try ImagingHelpers.render(try ImagingHelpers.data("imaging/icc_srgb.webp"), .attachment)
        XCTAssertTrue(webp.source.hasICCProfile)
        XCTAssertTrue(try ImageProbe.probe(webp.bytes).hasICCProfile)
        let plain = try ImagingHelpers.render(try ImagingHelpers.data("imaging/orientation_1.jpg"), .attachment)
        XCTAssertFalse(try ImageProbe.probe(plain.bytes).hasICCProfile)
        XCTAssertNil(ICCProfile.keepIfRGB([UInt8](repeating: 0, count: 16) + Array("CMYK".utf8) + [UInt8](repeating: 0, count: 120)))
    }

    /// Issue 36: a 3 MB colour profile alone is over the attachment's byte budget; it is dropped with a warning, and
    /// the media kept, where before the render failed as output_too_large.
    func testAnOversizedICCProfileIsDroppedInsteadOfTheMedia() throws {
        let profile = [UInt8](repeating: 0, count: 16) + Array("RGB ".utf8) + [UInt8](repeating: 7, count: 3_000_000)
        let source = try JPEGEncoder.encode(ImagingHelpers.gradient(checker: 8), quality: 90, progressive: false,
                                            iccProfile: profile, budget: ImagingHelpers.farBudget)
        XCTAssertGreaterThan(source.count, 3_000_000)
        let rendered = try ImagingHelpers.render(source, .attachment)
        XCTAssertTrue(rendered.source.hasICCProfile)
        XCTAssertFalse(try ImageProbe.probe(rendered.bytes).hasICCProfile)
        XCTAssertLessThanOrEqual(rendered.bytes.count, try XCTUnwrap(ImageVariant.attachment.maximumBytes))
        XCTAssertTrue(rendered.warnings.contains { $0.contains("ICC profile was dropped") }, "\(rendered.warnings)")
    }

    func testAnimatedWebPGivesFirstFrameWithWarning() throws {
        let rendered = try ImagingHelpers.render(try ImagingHelpers.data("imaging/animated.webp"), .attachment)
        XCTAssertEqual(rendered.format, .jpeg)
        XCTAssertTrue(rendered.warnings.contains { $0.contains("first frame") })
        let image = try ImagingHelpers.decodeRGBA(rendered.bytes)
        assertColour(ImagingHelpers.pixel(image, 16, 12), [255, 0, 0, 255], tolerance: 10, "first frame is red")
    }
}
