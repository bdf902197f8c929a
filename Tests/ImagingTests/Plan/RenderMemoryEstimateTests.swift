import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushImaging
import TestSupport

/// The render memory estimate (`RenderPlan.estimatedPeakBytes`, what `--render-memory` reserves) against the
/// peak RSS a render really reaches, for the files whose decoders hold whole-image buffers: a progressive JPEG
/// (libjpeg's coefficients, at full size whatever the DCT scale) and an interlaced PNG resized without a box shrink
/// (a story page too close to its box for one), which keeps half its rows. The large files are generated here.
final class RenderMemoryEstimateTests: XCTestCase {
    /// A `width`x`height` progressive JPEG of gradients (4:2:0, as `JPEGEncoder` writes).
    private func progressiveJPEG(width: Int, height: Int) throws -> Data {
        var image = PixelBuffer(width: width, height: height, channels: 3)
        image.pixels.withUnsafeMutableBufferPointer { pixels in
            for y in 0..<height {
                for x in 0..<width {
                    let start = (y * width + x) * 3
                    pixels[start] = UInt8(truncatingIfNeeded: x / 16)
                    pixels[start + 1] = UInt8(truncatingIfNeeded: y / 16)
                    pixels[start + 2] = UInt8(truncatingIfNeeded: (x ^ y) / 32)
                }
            }
        }
        return try JPEGEncoder.encode(image, quality: 80, progressive: true, iccProfile: nil, budget: ImagingHelpers.farBudget)
    }

    /// Renders `bytes` as `variant` and checks that the estimate covers the growth of the peak RSS; returns both.
    private func assertEstimateBoundsPeak(_ bytes: Data, as variant: ImageVariant, file: StaticString = #filePath,
                                          line: UInt = #line) throws -> (estimate: Int, grown: Int) {
        let probe = try ImageProbe.probe(bytes)
        let estimate = ImagePipeline().renderPlan(for: probe, as: variant).estimatedPeakBytes
        let before = ImagingHelpers.startMemoryMeasurement()
        _ = try ImagingHelpers.render(bytes, variant)
        let grown = (ImagingHelpers.peakResidentKilobytes() - before) * 1024
        print("\(probe.format) \(probe.width)x\(probe.height) as \(variant.name): estimate \(estimate >> 20) MB, peak grew \(grown >> 20) MB")
        XCTAssertLessThanOrEqual(grown, estimate, "the render's peak is outside its reservation", file: file, line: line)
        return (estimate, grown)
    }

    func testProgressiveJPEGEstimateHoldsItsCoefficientsAndBoundsThePeak() throws {
        // 6000x4000: 72 MB of coefficients at 4:2:0; the attachment decodes at 2/8, 1500x1000 (4.5 MB).
        let bytes = try progressiveJPEG(width: 6000, height: 4000)
        let probe = try ImageProbe.probe(bytes)
        let coefficients = (750 * 500 + 2 * 375 * 250) * 64 * 2
        XCTAssertTrue(probe.isMultiScan)
        XCTAssertEqual(ImagePipeline().renderPlan(for: probe, as: .attachment).wholeImageCoefficientBytes, coefficients)
        let estimate = try assertEstimateBoundsPeak(bytes, as: .attachment).estimate
        XCTAssertGreaterThan(estimate, coefficients)
        // The baseline twin holds no coefficients.
        var baseline = PixelBuffer(width: 64, height: 64, channels: 3)
        baseline.pixels[0] = 1
        let baselineProbe = try ImageProbe.probe(ImagingHelpers.encodeJPEG(baseline))
        XCTAssertFalse(baselineProbe.isMultiScan)
        XCTAssertEqual(ImagePipeline().renderPlan(for: baselineProbe, as: .attachment).wholeImageCoefficientBytes, 0)
    }

    func testInterlacedPNGStoryPageHoldsHalfTheImageAndTheEstimateBoundsThePeak() throws {
        // 6000x6000 into the story's 1080x1620 cover: a reduction of 3.7, under the box shrink's, so the interlaced
        // file is resized without one, as its last pass arrives, keeping only the even rows (54 MB of RGB, not the
        // 108 MB full-size image and its copy).
        let bytes = PNGBomb.trailingZeros(width: 6000, height: 6000, trailingZeroBytes: 0, interlaced: true)
        let fullSize = 6000 * 6000 * 3, evenRows = 3000 * 6000 * 3
        let (estimate, grown) = try assertEstimateBoundsPeak(bytes, as: .story)
        XCTAssertGreaterThan(estimate, evenRows)
        XCTAssertLessThan(estimate, 2 * fullSize, "reserves the full-size decode and its copy")
        XCTAssertLessThan(grown, fullSize * 3 / 4, "the full-size image was held")
    }
}
