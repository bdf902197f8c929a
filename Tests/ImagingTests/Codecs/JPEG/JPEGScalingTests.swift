import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushImaging

/// The DCT scale chosen for a box, and the decode that resizes rows as they arrive (`StreamingResampler`).
final class JPEGScalingTests: XCTestCase {
    // MARK: scale choice

    func testScaleIsTheSmallestCandidateThatCoversTheTarget() {
        // Every candidate it picks covers the target, and the next smaller candidate does not.
        for (width, height) in [(4032, 3024), (1080, 1920), (1600, 1200), (6000, 4000), (333, 777)] {
            for target in stride(from: 40, through: max(width, height), by: 37) {
                let targetWidth = min(width, target), targetHeight = min(height, target * height / width + 1)
                let numerator = JPEGDecoder.scaleNumerator(width: width, height: height,
                                                           targetWidth: targetWidth, targetHeight: targetHeight)
                XCTAssertTrue(JPEGDecoder.scaleNumerators.contains(numerator))
                func covers(_ numerator: Int) -> Bool {
                    JPEGDecoder.scaledSize(width, numerator: numerator) >= targetWidth
                        && JPEGDecoder.scaledSize(height, numerator: numerator) >= targetHeight
                }
                XCTAssertTrue(covers(numerator), "\(width)x\(height) → \(targetWidth)x\(targetHeight): \(numerator)/8")
                if let index = JPEGDecoder.scaleNumerators.firstIndex(of: numerator), index > 0 {
                    XCTAssertFalse(covers(JPEGDecoder.scaleNumerators[index - 1]),
                                   "\(width)x\(height) → \(targetWidth)x\(targetHeight): a smaller scale covers")
                }
            }
        }
    }

    func testScalesForTheCorpusSizes() {
        // 4032x3024 into 1038x778: 2/8 gives 1008 wide, short of 1038; 3/8 (1512) would cover but is not a
        // candidate (slower than 4/8 with its SIMD IDCT), so 4/8.
        XCTAssertEqual(JPEGDecoder.scaleNumerator(width: 4032, height: 3024, targetWidth: 1038, targetHeight: 779), 4)
        XCTAssertFalse(JPEGDecoder.scaleNumerators.contains(3))
        // 1080x1920 into 584x1038: 4/8 gives 540x960, 5/8 gives 675x1200.
        XCTAssertEqual(JPEGDecoder.scaleNumerator(width: 1080, height: 1920, targetWidth: 584, targetHeight: 1038), 5)
        // 1600x1200 into 1038x779: 5/8 gives 1000 wide, short of 1038; 6/8 (1200) would cover but is not a
        // candidate (it cost the 2 MP corpus file PSNR), so 8/8.
        XCTAssertEqual(JPEGDecoder.scaleNumerator(width: 1600, height: 1200, targetWidth: 1038, targetHeight: 779), 8)
        XCTAssertFalse(JPEGDecoder.scaleNumerators.contains(6))
        // Landing exactly on the target is enough: 2/8 of 4032x3024 is 1008x756.
        XCTAssertEqual(JPEGDecoder.scaleNumerator(width: 4032, height: 3024, targetWidth: 1008, targetHeight: 756), 2)
        // No downscale, or too little for any candidate: full size.
        XCTAssertEqual(JPEGDecoder.scaleNumerator(width: 800, height: 600, targetWidth: 800, targetHeight: 600), 8)
        XCTAssertEqual(JPEGDecoder.scaleNumerator(width: 1000, height: 1000, targetWidth: 900, targetHeight: 900), 8)
    }

    // MARK: streaming resize

    /// A JPEG of gradients, fine lines and a checker patch: resampling errors show on all of them.
    private func photo(width: Int, height: Int) throws -> Data {
        var image = PixelBuffer(width: width, height: height, channels: 3)
        for y in 0..<height {
            for x in 0..<width {
                let start = (y * width + x) * 3
                let line = x % 41 == 0 || y % 29 == 0
                let checker = x > width / 3 && x < width / 2 && y > height / 3 && y < height / 2 && (x / 3 + y / 3) % 2 == 0
                image.pixels[start] = line ? 255 : checker ? 10 : UInt8(x * 255 / width)
                image.pixels[start + 1] = line ? 255 : checker ? 220 : UInt8(y * 255 / height)
                image.pixels[start + 2] = line ? 0 : UInt8(truncatingIfNeeded: (x + y) / 5)
            }
        }
        return try ImagingHelpers.encodeJPEG(image)
    }

    /// The streaming decode against the whole decode at the same scale followed by `Resampler.lanczos`.
    private func assertStreamingMatchesWholeDecode(_ bytes: Data, box: (Int, Int), fit: ImageVariant.Fit,
                                                   file: StaticString = #filePath, line: UInt = #line) throws {
        let probe = try ImageProbe.probe(bytes)
        let plan = ResizePlan.make(width: probe.width, height: probe.height, swapsAxes: false,
                                   boxWidth: box.0, boxHeight: box.1, fit: fit)
        let target = plan.fullScaledSize(sourceWidth: probe.width, sourceHeight: probe.height)
        let numerator = JPEGDecoder.scaleNumerator(width: probe.width, height: probe.height,
                                                   targetWidth: target.width, targetHeight: target.height)
        let whole = try JPEGDecoder.decode(bytes, scaleNumerator: numerator, budget: ImagingHelpers.farBudget).pixels
        let scaledPlan = plan.scaled(toSourceWidth: whole.width, height: whole.height, fromWidth: probe.width, height: probe.height)
        XCTAssertEqual(Resampler.boxReduction(for: scaledPlan), 1, "the case needs no box pre-shrink", file: file, line: line)
        let expected = try Resampler.lanczos(whole, plan: scaledPlan, budget: ImagingHelpers.farBudget)

        XCTAssertEqual(RenderPlan.rowResize(plan, sourceWidth: probe.width, sourceHeight: probe.height,
                                            decodedWidth: whole.width, decodedHeight: whole.height), scaledPlan,
                       "the plan streams this resize", file: file, line: line)
        let streamed = try JPEGDecoder.decode(bytes, scaleNumerator: numerator, resizingRowsWith: scaledPlan,
                                              budget: ImagingHelpers.farBudget).pixels
        XCTAssertEqual(streamed.width, plan.outputWidth, file: file, line: line)
        XCTAssertEqual(streamed.height, plan.outputHeight, file: file, line: line)
        XCTAssertTrue(streamed.pixels == expected.pixels, "streamed pixels differ from decode-then-resize", file: file, line: line)
    }

    func testStreamingResizeGivesTheSameBytesAsDecodingWholeThenResizing() throws {
        let bytes = try photo(width: 1203, height: 917)
        // 4/8 (602x459) into 500x381; 5/8 (C IDCT) for boxes just under it; 8/8 into larger boxes.
        for box in [(500, 500), (700, 700), (860, 860), (1100, 1100)] {
            try assertStreamingMatchesWholeDecode(bytes, box: box, fit: .contain)
        }
        // A centre crop: the rows above and below it are decoded but never read.
        try assertStreamingMatchesWholeDecode(bytes, box: (300, 600), fit: .cover)
        // A tall image: the window of source rows slides over a hundred bands.
        try assertStreamingMatchesWholeDecode(try photo(width: 40, height: 2000), box: (30, 900), fit: .contain)
        // CMYK rows are converted to RGB before they reach the resize.
        try assertStreamingMatchesWholeDecode(try ImagingHelpers.data("imaging/cmyk.jpg"), box: (50, 50), fit: .contain)
    }

    func testNoRowResizeIsPlannedWhenABoxPreShrinkIsNeeded() throws {
        // 1203 px into 100 px at 8/8 is a 12x reduction, so the resize starts with a box pre-shrink, which runs on
        // the whole image after the decode: the plan keeps the rows whole. (The pipeline itself picks 1/8 here and
        // streams.)
        let bytes = try photo(width: 1203, height: 917)
        let plan = ResizePlan.make(width: 1203, height: 917, swapsAxes: false, boxWidth: 100, boxHeight: 100, fit: .contain)
        XCTAssertNil(RenderPlan.rowResize(plan, sourceWidth: 1203, sourceHeight: 917, decodedWidth: 1203, decodedHeight: 917))
        XCTAssertNotNil(RenderPlan.rowResize(plan, sourceWidth: 1203, sourceHeight: 917, decodedWidth: 151, decodedHeight: 115))
        let decoded = try JPEGDecoder.decode(bytes, scaleNumerator: 8, budget: ImagingHelpers.farBudget)
        XCTAssertEqual(decoded.pixels.width, 1203)
        XCTAssertEqual(decoded.pixels.height, 917)
        let rendered = try ImagingHelpers.render(bytes, ImageVariant(name: "small", width: 100, height: 100))
        XCTAssertEqual(rendered.width, 100)
        XCTAssertTrue(rendered.plan.resizesRowsWhileDecoding)
    }

    func testTruncatedJPEGFailsOnTheStreamingPath() throws {
        // 2400x1800 into the attachment box: 4/8 (1200x900) streams into 1038x779; the cut is halfway down.
        let bytes = try photo(width: 2400, height: 1800)
        let plan = ResizePlan.make(width: 2400, height: 1800, swapsAxes: false, boxWidth: 1038, boxHeight: 1038, fit: .contain)
        let rowResize = try XCTUnwrap(RenderPlan.rowResize(plan, sourceWidth: 2400, sourceHeight: 1800, decodedWidth: 1200, decodedHeight: 900))
        XCTAssertNoThrow(try JPEGDecoder.decode(bytes, scaleNumerator: 4, resizingRowsWith: rowResize, budget: ImagingHelpers.farBudget))
        XCTAssertThrowsError(try JPEGDecoder.decode(bytes.prefix(bytes.count / 2), scaleNumerator: 4, resizingRowsWith: rowResize,
                                                    budget: ImagingHelpers.farBudget)) { error in
            XCTAssertEqual((error as? ImageError)?.code, "corrupt_image", "\(error)")
        }
    }
}
