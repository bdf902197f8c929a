import Foundation
import TestSupport
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushImaging

/// Interlaced (Adam7) PNGs are shrunk pass by pass into running sums; the result must be exactly the box shrink
/// of the premultiplied full-size decode, whatever the colour type, bit depth, size or reduction.
final class InterlacedPNGShrinkTests: XCTestCase {
    private func assertShrinkMatchesFullSize(_ bytes: Data, by reduction: Int, _ name: String,
                                             file: StaticString = #filePath, line: UInt = #line) throws {
        let limits = ImageLimits(maximumPixels: Int.max, maximumSide: Int.max, maximumSourceBytes: Int.max)
        let decoded = try PNGDecoder.decode(bytes, limits: limits, budget: ImagingHelpers.farBudget)
        var full = decoded.pixels
        full.premultiply()
        let expected = try Resampler.boxShrink(full, by: reduction, budget: ImagingHelpers.farBudget)
        let shrunk = try PNGDecoder.decode(bytes, limits: limits, shrinkingBy: reduction, budget: ImagingHelpers.farBudget)
        XCTAssertEqual([shrunk.pixels.width, shrunk.pixels.height, shrunk.pixels.channels],
                       [expected.width, expected.height, expected.channels], "\(name) by \(reduction)", file: file, line: line)
        XCTAssertTrue(shrunk.pixels.pixels == expected.pixels, "\(name) by \(reduction): pixels differ", file: file, line: line)
        XCTAssertEqual(shrunk.isPremultiplied, full.channels == 4, name, file: file, line: line)
        XCTAssertEqual(shrunk.hasTranslucentPixels, decoded.pixels.hasTranslucentPixels, name, file: file, line: line)
    }

    func testPngSuiteInterlacedFilesShrinkExactlyLikeTheFullSizeDecode() throws {
        let directory = URL(fileURLWithPath: "/work/shared/conformance/png")
        let local = fixture("conformance/png")
        let source = FileManager.default.fileExists(atPath: directory.path) ? directory : local
        var checked = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: source.path).sorted() where name.hasSuffix(".png") {
            let bytes = try Data(contentsOf: source.appendingPathComponent(name))
            // Only the files that decode and are interlaced (IHDR's last byte); the x* files are broken on purpose.
            guard let probe = try? ImageProbe.probe(bytes), probe.isInterlaced,
                  (try? PNGDecoder.decode(bytes, limits: ImageLimits(), budget: ImagingHelpers.farBudget)) != nil else { continue }
            for reduction in [2, 3, 5, 17] {
                try assertShrinkMatchesFullSize(bytes, by: reduction, name)
            }
            checked += 1
        }
        XCTAssertGreaterThanOrEqual(checked, 15, "PngSuite has interlaced files of every colour type")
    }

    func testLargeGeneratedInterlacedImagesShrinkExactly() throws {
        // Sides that are not multiples of 8 (partial Adam7 blocks) nor of the reductions (partial boxes).
        let translucent = try Self.interlacedPNG(width: 1203, height: 901, channels: 4)
        for reduction in [2, 4, 7, 16, 20] {
            try assertShrinkMatchesFullSize(translucent, by: reduction, "RGBA 1203x901")
        }
        let opaque = try Self.interlacedPNG(width: 997, height: 1009, channels: 3)
        for reduction in [3, 9] {
            try assertShrinkMatchesFullSize(opaque, by: reduction, "RGB 997x1009")
        }
    }

    func testRendersOfInterlacedFilesAreThoseOfTheFullSizePath() throws {
        // Shrunk into running sums (contain 100), or resized as the last pass arrives without a box shrink
        // (attachment, story), against the full-size decode resized afterwards.
        var fullSize = ImagePipeline()
        fullSize.resizesPNGWhileDecoding = false
        let variants = [ImageVariant(name: "contain", width: 100, height: 100, fit: .contain), .attachment, .story,
                        ImageVariant(name: "odd", width: 333, height: 217, fit: .cover)]
        for (name, bytes) in [("RGBA 1203x901", try Self.interlacedPNG(width: 1203, height: 901, channels: 4)),
                              ("RGB 997x1009", try Self.interlacedPNG(width: 997, height: 1009, channels: 3))] {
            for variant in variants {
                let expected = try fullSize.renderSynchronously(bytes, as: variant, budget: ImagingHelpers.farBudget)
                let rendered = try ImagePipeline().renderSynchronously(bytes, as: variant, budget: ImagingHelpers.farBudget)
                XCTAssertEqual(rendered.bytes, expected.bytes, "\(name) as \(variant.name)")
            }
        }
    }

    func testInterlacedResizeMatchesTheFullSizeDecodeForEveryPngSuiteFile() throws {
        // Every colour type and bit depth, and sides from 1 to 40 (passes without pixels), resized by 1.5 to 4/3.
        let directory = URL(fileURLWithPath: "/work/shared/conformance/png")
        let source = FileManager.default.fileExists(atPath: directory.path) ? directory : fixture("conformance/png")
        var checked = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: source.path).sorted() where name.hasSuffix(".png") {
            let bytes = try Data(contentsOf: source.appendingPathComponent(name))
            guard let probe = try? ImageProbe.probe(bytes), probe.isInterlaced,
                  let whole = try? PNGDecoder.decode(bytes, limits: ImageLimits(), budget: ImagingHelpers.farBudget) else { continue }
            let plan = ResizePlan.make(width: probe.width, height: probe.height, swapsAxes: false,
                                       boxWidth: max(1, probe.width * 2 / 3), boxHeight: max(1, probe.height * 3 / 4), fit: .cover)
            guard plan.outputWidth != probe.width || plan.outputHeight != probe.height else { continue }
            XCTAssertEqual(Resampler.boxReduction(for: plan), 1, name)
            var pixels = whole.pixels
            if pixels.channels == 4 { pixels.premultiply() }
            let expected = try Resampler.lanczos(pixels, plan: plan, budget: ImagingHelpers.farBudget)
            let resized = try PNGDecoder.decode(bytes, limits: ImageLimits(), resizingRowsWith: plan, budget: ImagingHelpers.farBudget)
            XCTAssertTrue(resized.pixels.pixels == expected.pixels, name)
            checked += 1
        }
        XCTAssertGreaterThanOrEqual(checked, 25, "PngSuite's interlaced files")
    }

    func testDeadlineStopsTheInterlacedShrink() throws {
        let bytes = try Self.interlacedPNG(width: 600, height: 400, channels: 4)
        XCTAssertThrowsError(try PNGDecoder.decode(bytes, limits: ImageLimits(), shrinkingBy: 4,
                                                   budget: WorkBudget(deadline: .now - .milliseconds(1)))) { error in
            XCTAssertEqual(error as? ImageError, .deadlineExceeded)
        }
    }

    /// An 8-bit Adam7 PNG with texture (and varied alpha for RGBA), written here: libpng's writer in the project
    /// only writes non-interlaced files. The IDAT is stored (uncompressed) deflate.
    static func interlacedPNG(width: Int, height: Int, channels: Int) throws -> Data {
        func sample(_ x: Int, _ y: Int, _ channel: Int) -> UInt8 {
            switch channel {
            case 0: UInt8(truncatingIfNeeded: x * 3 + y)
            case 1: UInt8(truncatingIfNeeded: (x ^ y) * 7)
            case 2: UInt8(truncatingIfNeeded: y * 5 + x / 3)
            default: (x / 40 + y / 30) % 3 == 0 ? 255 : UInt8(truncatingIfNeeded: x + 2 * y)
            }
        }
        let passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        var raw: [UInt8] = []
        raw.reserveCapacity(width * height * channels + height * 8)
        for (column, row, columnStep, rowStep) in passes where column < width && row < height {
            for y in stride(from: row, to: height, by: rowStep) {
                raw.append(0)   // filter: none
                for x in stride(from: column, to: width, by: columnStep) {
                    for channel in 0..<channels { raw.append(sample(x, y, channel)) }
                }
            }
        }
        return PNGFile.file(header: PNGFile.header(width: width, height: height, colourType: channels == 4 ? 6 : 2, interlaced: true),
                            chunks: [("IDAT", ImagingHelpers.storedZlib(raw))])
    }
}
