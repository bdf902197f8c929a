import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushImaging

final class ProbeTests: XCTestCase {
    private func detected(_ bytes: [UInt8]) -> String? {
        do {
            _ = try ImageProbe.probe(Data(bytes))
            return nil
        } catch {
            guard case .unsupportedFormat(let detected) = error else { return "other: \(error)" }
            return detected
        }
    }

    func testUnsupportedFormatsAreNamed() {
        XCTAssertEqual(detected([]), "empty")
        XCTAssertEqual(detected(Array("<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8)), "SVG")
        XCTAssertEqual(detected(Array("<?xml version=\"1.0\"?>\n<svg></svg>".utf8)), "SVG")
        XCTAssertEqual(detected(Array("  <!DOCTYPE html><html></html>".utf8)), "HTML")
        XCTAssertEqual(detected(Array("BM".utf8) + [UInt8](repeating: 0, count: 60)), "BMP")
        XCTAssertEqual(detected([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]), "TIFF")
        // HEIC and AVIF stills are decoded (HEIFTests); other ISO media is named by its brand.
        XCTAssertEqual(detected([0, 0, 0, 0x10] + Array("ftypisom".utf8) + [0, 0, 0, 0]), "ISO media (isom)")
        XCTAssertEqual(detected([0, 0, 0, 0x10] + Array("ftyphevc".utf8) + [0, 0, 0, 0]), "HEIC image sequence")
        XCTAssertEqual(detected([0, 0, 0, 0x10] + Array("ftypmsf1".utf8) + [0, 0, 0, 0]), "HEIC without a still image (an image sequence)")
        XCTAssertEqual(detected(Array("%PDF-1.7\n".utf8)), "PDF")
    }

    func testProbesEachFormatFromHeaders() throws {
        let jpeg = try ImageProbe.probe(try ImagingHelpers.data("conformance/jpeg/testorig.jpg"))
        XCTAssertEqual([jpeg.width, jpeg.height], [227, 149])
        XCTAssertEqual(jpeg.format, .jpeg)
        let png = try ImageProbe.probe(try ImagingHelpers.data("conformance/png/basn6a08.png"))
        XCTAssertEqual([png.width, png.height], [32, 32])
        XCTAssertTrue(png.hasAlpha)
        let palette = try ImageProbe.probe(try ImagingHelpers.data("conformance/png/tbbn3p08.png"))
        XCTAssertTrue(palette.hasAlpha, "tRNS means alpha")
        let animated = try ImageProbe.probe(try ImagingHelpers.data("imaging/animated.webp"))
        XCTAssertEqual([animated.width, animated.height], [32, 24])
        XCTAssertTrue(animated.isAnimated)
        let lossless = try ImageProbe.probe(try ImagingHelpers.data("conformance/webp/lossless1.webp"))
        XCTAssertEqual(lossless.format, .webp)
        XCTAssertGreaterThan(lossless.width, 0)
        let icc = try ImageProbe.probe(try ImagingHelpers.data("imaging/icc_srgb.jpg"))
        XCTAssertTrue(icc.hasICCProfile)
        XCTAssertEqual(try ImageProbe.probe(try ImagingHelpers.data("imaging/orientation_6.jpg")).orientation, 6)
        XCTAssertEqual(try ImageProbe.probe(try ImagingHelpers.data("imaging/orientation_7.jpg")).orientation, 7)
    }

    func testGIFProbeAndPassThrough() throws {
        let gif = ImagingHelpers.tinyGIF(width: 3, height: 2, frames: 2)
        let probe = try ImageProbe.probe(Data(gif))
        XCTAssertEqual([probe.width, probe.height], [3, 2])
        XCTAssertTrue(probe.isAnimated)
        let rendered = try ImagingHelpers.render(Data(gif), .attachment)
        XCTAssertEqual(rendered.format, .gif)
        XCTAssertEqual(rendered.bytes, Data(gif))
        XCTAssertFalse(rendered.warnings.isEmpty)
    }

    func testLimitsAreEnforcedFromHeaders() throws {
        let bytes = try ImagingHelpers.data("conformance/jpeg/testorig.jpg")
        XCTAssertThrowsError(try ImageProbe.probe(bytes, limits: ImageLimits(maximumSourceBytes: 100))) { error in
            XCTAssertEqual((error as? ImageError)?.code, "source_too_large")
        }
        XCTAssertThrowsError(try ImageProbe.probe(bytes, limits: ImageLimits(maximumSide: 200))) { error in
            XCTAssertEqual(error as? ImageError, .sideTooLong(width: 227, height: 149, limit: 200))
        }
        XCTAssertThrowsError(try ImageProbe.probe(bytes, limits: ImageLimits(maximumPixels: 227 * 149 - 1))) { error in
            XCTAssertEqual((error as? ImageError)?.code, "too_many_pixels")
        }
        XCTAssertNoThrow(try ImageProbe.probe(bytes, limits: ImageLimits(maximumPixels: 227 * 149)))
        // Overflow-safe: an absurd limit configuration still rejects cleanly.
        XCTAssertThrowsError(try ImageLimits(maximumPixels: 10, maximumSide: .max).check(width: .max, height: .max))
    }

    func testTruncatedHeadersAreCorrupt() {
        for bytes: [UInt8] in [[0xFF, 0xD8, 0xFF], [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0],
                               Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8), Array("GIF89a".utf8)] {
            XCTAssertThrowsError(try ImageProbe.probe(Data(bytes))) { error in
                XCTAssertEqual((error as? ImageError)?.code, "corrupt_image", "\(bytes)")
            }
        }
    }
}
