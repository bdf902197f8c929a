import Foundation
import XCTest
@testable import RichPushImaging
import ImagingTestSupport
import TestSupport

/// Overshoot deringing through our own JPEG front end (`JPEGTransform`): the same file as libjpeg's without it, and
/// with it a cleaner white side of every dark edge, which the quality search turns into fewer bytes at its target.
final class DeringingTests: XCTestCase {
    private var budget: WorkBudget { ImagingHelpers.farBudget }

    private func textOnWhite() throws -> PixelBuffer {
        try PNGDecoder.decode(ImagingHelpers.data("imaging/text_on_white.png"), limits: ImageLimits(), budget: budget).pixels
    }

    private func photo(width: Int, height: Int) throws -> PixelBuffer {
        try ImagingHelpers.resizedPixels(ImagingHelpers.data("media/hero.jpg"), width: width, height: height)
    }

    private func meanAbsoluteDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        zip(a.pixels, b.pixels).reduce(0.0) { $0 + abs(Double($1.0) - Double($1.1)) } / Double(a.pixels.count)
    }

    /// Without deringing the front end is libjpeg's, at both chroma layouts and at an odd size that needs edge
    /// padding: the same pixels back (within the float against integer DCT's rounding) and the same size within 2%.
    /// A wrong colour matrix, a swapped chroma plane or misplaced padding would move the pixels by several levels.
    func testWithoutDeringingTheTransformReproducesLibjpeg() throws {
        let full = try photo(width: 256, height: 256)
        let width = full.width - 3, height = full.height - 5
        let pixels = PixelBuffer(width: width, height: height, channels: 3, pixels: (0..<height).flatMap { y in
            full.pixels[(y * full.width * 3)..<((y * full.width + width) * 3)]
        })
        for chroma in [JPEGEncoder.Chroma.halved, .full] {
            let transform = try JPEGTransform(pixels, chroma: chroma, deringing: [], budget: budget)
            let ours = try JPEGEncoder.encode(transform, quality: 80, progressive: false, quantization: .perceptual,
                                              trellis: false, iccProfile: nil, budget: budget)
            let libjpeg = try JPEGEncoder.encode(pixels, quality: 80, progressive: false, chroma: chroma,
                                                 quantization: .perceptual, iccProfile: nil, budget: budget)
            XCTAssertEqual(Double(ours.count), Double(libjpeg.count), accuracy: Double(libjpeg.count) * 0.02, "\(chroma)")
            let decodedOurs = try JPEGDecoder.decode(ours, budget: budget).pixels
            let decodedLibjpeg = try JPEGDecoder.decode(libjpeg, budget: budget).pixels
            XCTAssertEqual([decodedOurs.width, decodedOurs.height], [width, height])
            XCTAssertLessThan(meanAbsoluteDifference(decodedOurs, decodedLibjpeg), 0.5, "\(chroma)")
        }
    }

    /// The coefficient path writes the colour profile it is given, as libjpeg's own path does.
    func testTheTransformPathKeepsTheColourProfile() throws {
        let source = try JPEGDecoder.decode(ImagingHelpers.data("imaging/icc_srgb.jpg"), budget: budget)
        let profile = try XCTUnwrap(source.iccProfile)
        let transform = try JPEGTransform(source.pixels, chroma: .halved, deringing: [.white], budget: budget)
        let encoded = try JPEGEncoder.encode(transform, quality: 80, progressive: true, quantization: .perceptual,
                                             trellis: true, iccProfile: profile, budget: budget)
        XCTAssertEqual(try JPEGDecoder.decode(encoded, budget: budget).iccProfile, profile)
    }

    /// A run of white beside dark samples rises above white, and a run of black beside light ones falls below black,
    /// within the cap from the DC step; the other samples, a wholly white or black block and a block with neither
    /// are left as they were.
    func testWhiteAndBlackRunsGoPastTheirExtremeWithinTheCap() {
        for (extreme, other, direction) in [(Deringing.white, Float(-100), Float(1)), (Deringing.black, Float(100), Float(-1))] {
            // Columns 0-3 at `other`, 4-7 at the extreme: each zig-zag run of the extreme is bounded by the others.
            let original = (0..<64).map { $0 % 8 < 4 ? other : extreme }
            var block = original
            block.withUnsafeMutableBufferPointer { Deringing.apply(to: $0, dcStep: 4) }
            for k in 0..<64 where original[k] == other { XCTAssertEqual(block[k], other, "sample \(k) is not at \(extreme)") }
            let moved = (0..<64).filter { original[$0] == extreme }.map { (block[$0] - extreme) * direction }
            XCTAssertTrue(moved.allSatisfy { $0 >= 0 }, "\(extreme): \(moved)")
            XCTAssertEqual(moved.max() ?? 0, 8, "\(extreme): past the extreme, capped at twice the DC step")

            var capped = original
            capped.withUnsafeMutableBufferPointer { Deringing.apply(to: $0, dcStep: 50) }
            XCTAssertEqual((0..<64).map { (capped[$0] - extreme) * direction }.max() ?? 0, Deringing.largestOvershoot,
                           "\(extreme): never past the overshoot cap")
        }
        for untouched in [[Float](repeating: Deringing.white, count: 64), [Float](repeating: Deringing.black, count: 64),
                          [Float](repeating: 20, count: 64)] {
            var block = untouched
            block.withUnsafeMutableBufferPointer { Deringing.apply(to: $0, dcStep: 4) }
            XCTAssertEqual(block, untouched)
        }
    }

    /// At one quality, the deringed file of dark text on white scores well above the plain one: the grey halos on
    /// the white side of the strokes are clipped away. The plain file is libjpeg's own, so this also fails if the
    /// transform stops deringing.
    func testDeringingRaisesTheScoreOfTextOnWhiteAtOneQuality() throws {
        let pixels = try textOnWhite()
        let metric = try SSIMULACRA2(reference: pixels)
        let transform = try JPEGTransform(pixels, chroma: .full, deringing: .white, budget: budget)
        for quality in [50, 70] {
            let deringed = try JPEGEncoder.encode(transform, quality: quality, progressive: false, quantization: .standard,
                                                  trellis: false, iccProfile: nil, budget: budget)
            let plain = try JPEGEncoder.encode(pixels, quality: quality, progressive: false, chroma: .full,
                                               quantization: .standard, iccProfile: nil, budget: budget)
            let deringedScore = try metric.score(JPEGDecoder.decode(deringed, budget: budget).pixels)
            let plainScore = try metric.score(JPEGDecoder.decode(plain, budget: budget).pixels)
            XCTAssertGreaterThan(deringedScore, plainScore + 5, "q\(quality): \(deringedScore) against \(plainScore)")
        }
    }

    /// Deringed and trellis-quantised files are ordinary JPEGs: our own decoder, damage checks and all, accepts every
    /// one of them, at every quality and chroma layout the search may write (a CDN's copy may come back to us as a
    /// source).
    func testDeringedFilesPassTheDecodersDamageChecks() throws {
        let pixels = try textOnWhite()
        for chroma in [JPEGEncoder.Chroma.halved, .full] {
            let transform = try JPEGTransform(pixels, chroma: chroma, deringing: [.white, .black], budget: budget)
            for quality in stride(from: 30, through: 95, by: 5) {
                for tables in [JPEGQuantization.perceptual, .standard] {
                    let deringed = try JPEGEncoder.encode(transform, quality: quality, progressive: quality % 10 == 0,
                                                          quantization: tables, trellis: tables == .perceptual, iccProfile: nil,
                                                          budget: budget)
                    for scale in [8, 5, 4] {
                        XCTAssertNoThrow(try JPEGDecoder.decode(deringed, scaleNumerator: scale, budget: budget),
                                         "\(chroma) q\(quality) \(tables) at \(scale)/8")
                    }
                }
            }
        }
    }

    /// Text on white, and the same page inverted (white text on black), are deringed under a quality target and
    /// come out smaller than the same search through libjpeg's front end, still at the target, each on its
    /// background's extreme only; a photograph has no white or black background and is not deringed.
    func testTheSearchDeringsTextOnWhiteOrBlackForFewerBytesAtTheTarget() throws {
        let onWhite = try textOnWhite()
        var onBlack = onWhite
        onBlack.pixels = onWhite.pixels.map { 255 - $0 }
        XCTAssertEqual(Deringing.backgrounds(of: try photo(width: 512, height: 512)), [])
        // Measured: 0.72 and 0.80 of the plain search's bytes.
        for (pixels, background, ratio) in [(onWhite, Deringing.Extremes.white, 0.85), (onBlack, .black, 0.90)] {
            XCTAssertEqual(Deringing.backgrounds(of: pixels), background, "the background, not the strokes' extreme")
            var variant = ImageVariant(name: "t", width: pixels.width, height: pixels.height)
            variant.format = .jpeg
            variant.qualityTarget = 80
            var warnings: [String] = []
            let deringed = try ImageEncoding.encode(pixels, variant: variant, iccProfile: nil, budget: budget, warnings: &warnings)
            let plainSearch = QualitySearch(pixels: pixels, variant: variant, target: 80, budget: budget) { quality, chroma, tables, _ throws(ImageError) in
                try JPEGEncoder.encode(pixels, quality: quality, progressive: variant.progressive, chroma: chroma,
                                       quantization: tables, iccProfile: nil, budget: self.budget)
            }
            let plain = try plainSearch.run(warnings: &warnings)
            XCTAssertGreaterThanOrEqual(try XCTUnwrap(deringed.score), 80)
            let metric = try SSIMULACRA2(reference: pixels)
            XCTAssertGreaterThanOrEqual(try metric.score(JPEGDecoder.decode(deringed.bytes, budget: budget).pixels), 80,
                                        "the file as written scores what it reports")
            XCTAssertLessThan(Double(deringed.bytes.count), Double(plain.bytes.count) * ratio,
                              "\(deringed.bytes.count) bytes at q\(deringed.quality ?? 0) against \(plain.bytes.count) at q\(plain.quality)")
        }
    }

    /// A transform and its encode stay within `JPEGTransform.workingBytes`, and a searched render's reservation
    /// counts it beside the metric's.
    func testTheTransformStaysWithinTheMemoryItReserves() throws {
        let pixels = try textOnWhite()
        let meter = RenderMemoryMeter()
        let metered = WorkBudget(deadline: .now + .seconds(120), onCheck: meter.sample)
        let transform = try JPEGTransform(pixels, chroma: .full, deringing: [.white, .black], budget: metered)
        _ = try JPEGEncoder.encode(transform, quality: 70, progressive: true, quantization: .perceptual, trellis: true, iccProfile: nil,
                                   budget: metered)
        let reserved = JPEGTransform.workingBytes(width: pixels.width, height: pixels.height)
        XCTAssertLessThanOrEqual(meter.peakGrowth, reserved)
        XCTAssertGreaterThan(meter.peakGrowth, reserved / 2, "measured while the transform was alive")

        let probe = try ImageProbe.probe(try ImagingHelpers.data("imaging/text_on_white.png"))
        var variant = ImageVariant(name: "t", width: 600, height: 600, qualityTarget: 80)
        let searched = ImagePipeline().renderPlan(for: probe, as: variant).estimatedPeakBytes
        variant.qualityTarget = nil
        XCTAssertGreaterThanOrEqual(searched - ImagePipeline().renderPlan(for: probe, as: variant).estimatedPeakBytes,
                                    reserved + SSIMULACRA2.workingBytes(width: pixels.width, height: pixels.height))
    }
}
