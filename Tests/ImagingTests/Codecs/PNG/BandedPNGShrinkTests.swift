import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushImaging
import TestSupport

/// PNGs are box-shrunk or, below a 4x reduction, resized band by band while decoding, so their full-size pixels
/// never exist; the rendered bytes must be exactly those of the full-size path.
final class BandedPNGShrinkTests: XCTestCase {
    private static let variants = [
        ImageVariant(name: "contain", width: 100, height: 100, fit: .contain),
        ImageVariant(name: "cover", width: 90, height: 60, fit: .cover),
        ImageVariant(name: "dot", width: 5, height: 5, fit: .contain),
        // Under 4x: no box pre-shrink, the Lanczos resize runs on the rows as they are decoded.
        ImageVariant(name: "lanczos", width: 600, height: 600, fit: .contain),
        ImageVariant(name: "lanczos crop", width: 400, height: 380, fit: .cover),
    ]

    /// A `width`x`height` image with texture; `alpha` gives each pixel's alpha (nil: RGB).
    private func png(width: Int, height: Int, alpha: ((Int, Int) -> UInt8)?) throws -> Data {
        let channels = alpha == nil ? 3 : 4
        var image = PixelBuffer(width: width, height: height, channels: channels)
        for y in 0..<height {
            for x in 0..<width {
                let start = (y * width + x) * channels
                image.pixels[start] = UInt8(truncatingIfNeeded: x * 3 + y)
                image.pixels[start + 1] = UInt8(truncatingIfNeeded: (x ^ y) * 7)
                image.pixels[start + 2] = UInt8(truncatingIfNeeded: y * 5)
                if let alpha { image.pixels[start + 3] = alpha(x, y) }
            }
        }
        return try PNGEncoder.encode(image, iccProfile: nil, budget: ImagingHelpers.farBudget)
    }

    private func assertSameAsFullSizePath(_ bytes: Data, _ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        var fullSize = ImagePipeline()
        fullSize.resizesPNGWhileDecoding = false
        for variant in Self.variants {
            let expected = try fullSize.renderSynchronously(bytes, as: variant, budget: ImagingHelpers.farBudget)
            let banded = try ImagePipeline().renderSynchronously(bytes, as: variant, budget: ImagingHelpers.farBudget)
            XCTAssertEqual(banded.format, expected.format, "\(name) \(variant.name)", file: file, line: line)
            XCTAssertEqual(banded.bytes, expected.bytes, "\(name) \(variant.name)", file: file, line: line)
        }
    }

    func testRendersAreByteForByteThoseOfTheFullSizePath() throws {
        try assertSameAsFullSizePath(try png(width: 900, height: 701, alpha: nil), "RGB, partial last band")
        try assertSameAsFullSizePath(try png(width: 900, height: 700, alpha: { x, y in UInt8((x + y) % 256) }), "translucent")
        try assertSameAsFullSizePath(try png(width: 900, height: 700, alpha: { _, _ in 255 }), "opaque RGBA")
        // One pixel at 254: its shrunk block rounds to 255, but the image must still keep its alpha.
        try assertSameAsFullSizePath(try png(width: 900, height: 700, alpha: { x, y in x == 10 && y == 10 ? 254 : 255 }),
                                     "one translucent pixel")
        // Every colour type and bit depth, interlaced ones (decoded at full size) included.
        let directory = fixture("conformance/png")
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path)
            where name.hasSuffix(".png") && name.hasPrefix("b") {
            try assertSameAsFullSizePath(try Data(contentsOf: directory.appendingPathComponent(name)), name)
        }
    }

    func testDecoderGivesTheLanczosResizeOfThePremultipliedImage() throws {
        let bytes = try png(width: 100, height: 50, alpha: { x, _ in UInt8(x * 2) })
        let plan = ResizePlan.make(width: 100, height: 50, swapsAxes: false, boxWidth: 60, boxHeight: 60, fit: .contain)
        for allowsFastPath in [true, false] {
            var full = try PNGDecoder.decode(bytes, limits: ImageLimits(), allowsFastPath: allowsFastPath,
                                             budget: ImagingHelpers.farBudget).pixels
            full.premultiply()
            let expected = try Resampler.lanczos(full, plan: plan, budget: ImagingHelpers.farBudget)
            let resized = try PNGDecoder.decode(bytes, limits: ImageLimits(), resizingRowsWith: plan, allowsFastPath: allowsFastPath,
                                                budget: ImagingHelpers.farBudget)
            XCTAssertEqual([resized.pixels.width, resized.pixels.height], [60, 30])
            XCTAssertEqual(resized.pixels.pixels, expected.pixels, "fast path: \(allowsFastPath)")
            XCTAssertTrue(resized.isPremultiplied)
            XCTAssertEqual(resized.hasTranslucentPixels, true)
        }
        let opaque = try PNGDecoder.decode(try png(width: 100, height: 50, alpha: { _, _ in 255 }), limits: ImageLimits(),
                                           resizingRowsWith: plan, budget: ImagingHelpers.farBudget)
        XCTAssertEqual(opaque.hasTranslucentPixels, false)
    }

    func testDecoderGivesTheBoxShrinkOfThePremultipliedImage() throws {
        let bytes = try png(width: 100, height: 50, alpha: { x, _ in UInt8(x * 2) })
        var full = try PNGDecoder.decode(bytes, limits: ImageLimits(), budget: ImagingHelpers.farBudget).pixels
        full.premultiply()
        let expected = try Resampler.boxShrink(full, by: 3, budget: ImagingHelpers.farBudget)
        let shrunk = try PNGDecoder.decode(bytes, limits: ImageLimits(), shrinkingBy: 3, budget: ImagingHelpers.farBudget)
        XCTAssertEqual([shrunk.pixels.width, shrunk.pixels.height], [34, 17])
        XCTAssertEqual(shrunk.pixels.pixels, expected.pixels)
        XCTAssertTrue(shrunk.isPremultiplied)
        XCTAssertEqual(shrunk.hasTranslucentPixels, true)
    }
}
