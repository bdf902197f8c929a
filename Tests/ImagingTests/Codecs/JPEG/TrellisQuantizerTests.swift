import Foundation
import XCTest
@testable import RichPushImaging
import TestSupport

/// Trellis quantisation (`TrellisQuantizer`): values the entropy coder pays for are dropped or lowered where their
/// bits cost more than their error, which the quality search turns into fewer bytes at its target.
final class TrellisQuantizerTests: XCTestCase {
    private var budget: WorkBudget { ImagingHelpers.farBudget }

    /// A plain code: every run and size symbol 8 bits, end-of-block 4, a run of sixteen zeros 11.
    private let quantizer = TrellisQuantizer(codeLengths: (0..<256).map { symbol in
        symbol == 0x00 ? 4 : symbol == 0xF0 ? 11 : (symbol & 15) == 0 ? 0 : 8
    })

    /// Quantises `block` (in steps: every step is 1) with `quantizer`.
    private func quantized(_ block: [Float]) -> [Int16] {
        var output = [Int16](repeating: 99, count: 64)
        let ones = [Float](repeating: 1, count: 64)
        block.withUnsafeBufferPointer { block in
            ones.withUnsafeBufferPointer { ones in
                output.withUnsafeMutableBufferPointer { quantizer.quantize(block, reciprocals: ones, into: $0) }
            }
        }
        return output
    }

    private func photo(width: Int) throws -> PixelBuffer {
        try ImagingHelpers.resizedPixels(ImagingHelpers.data("media/hero.jpg"), width: width, height: width)
    }

    /// Every value is the nearest one or smaller, with the coefficient's sign, and large values (whose error would
    /// cost far more than their bits) are within a step; DC is always the nearest.
    func testValuesAreTheNearestOrSmallerWithTheirSign() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let block = (0..<64).map { k in Float.random(in: -40...40, using: &generator) / Float(1 + k / 4) }
            let output = quantized(block)
            XCTAssertEqual(output[0], Int16((block[0]).rounded(.toNearestOrAwayFromZero)))
            for k in 1..<64 {
                let nearest = block[k].rounded(.toNearestOrAwayFromZero)
                XCTAssertLessThanOrEqual(abs(Float(output[k])), abs(nearest), "coefficient \(k): \(block[k])")
                XCTAssertTrue(output[k] == 0 || (output[k] > 0) == (block[k] > 0), "coefficient \(k): \(block[k])")
                if abs(block[k]) >= 20 { XCTAssertLessThan(abs(Float(output[k]) - block[k]), 1, "coefficient \(k)") }
            }
        }
    }

    /// A lone value just over half a step at the end of the block rounds to 1, but costs a long zero run, its
    /// code and an end-of-block: the trellis drops it. A whole step at the start of the block stays.
    func testALoneSmallValueFarDownTheBlockIsDropped() {
        var block = [Float](repeating: 0, count: 64)
        block[0] = 10
        block[JPEGTransform.zigzag[50]] = 0.6
        XCTAssertEqual(quantized(block), [10] + [Int16](repeating: 0, count: 63))
        block[JPEGTransform.zigzag[1]] = 3
        let output = quantized(block)
        XCTAssertEqual(output[JPEGTransform.zigzag[1]], 3)
        XCTAssertEqual(output[JPEGTransform.zigzag[50]], 0)
    }

    /// A flat block's small value is kept that a strongly textured block's is not: the weight on the error falls
    /// as the block's energy rises, where texture masks the loss.
    func testATexturedBlockGivesUpMoreThanAFlatOne() {
        var flat = [Float](repeating: 0, count: 64)
        flat[JPEGTransform.zigzag[9]] = 1.4
        XCTAssertEqual(quantized(flat)[JPEGTransform.zigzag[9]], 1)
        var textured = flat
        for position in 1...8 { textured[JPEGTransform.zigzag[position]] = 400 }
        XCTAssertEqual(quantized(textured)[JPEGTransform.zigzag[9]], 0)
    }

    /// On a photograph at one quality, the trellis file is smaller than the rounded one, for a small loss of score.
    /// With code lengths read wrongly from libjpeg (all zero, or shuffled), it would drop everything or nothing.
    func testAPhotographLosesBytesForLittleScore() throws {
        let pixels = try photo(width: 512)
        let metric = try SSIMULACRA2(reference: pixels)
        for chroma in [JPEGEncoder.Chroma.halved, .full] {
            var results: [(bytes: Int, score: Double)] = []
            let transform = try JPEGTransform(pixels, chroma: chroma, deringing: [], budget: budget)
            for trellis in [false, true] {
                let bytes = try JPEGEncoder.encode(transform, quality: 75, progressive: false, quantization: .perceptual,
                                                   trellis: trellis, iccProfile: nil, budget: budget)
                results.append((bytes.count, try metric.score(JPEGDecoder.decode(bytes, budget: budget).pixels)))
            }
            let (rounded, trellised) = (results[0], results[1])
            XCTAssertLessThan(Double(trellised.bytes), Double(rounded.bytes) * 0.93, "\(chroma): \(results)")
            XCTAssertGreaterThan(trellised.score, rounded.score - 3, "\(chroma): \(results)")
        }
    }

    /// The search's 4:2:0 file is the trellis one at the quality it found (baseline or progressive, whichever was
    /// smaller). Its 4:4:4 file, and a smooth image's, are libjpeg's own: trellis is left out there, where it does
    /// not pay or makes the score curve jump.
    func testTheSearchUsesTrellisAtHalvedChromaOnAnImageThatIsNotSmooth() throws {
        func searched(_ pixels: PixelBuffer) throws -> ImageEncoding.Encoded {
            var variant = ImageVariant(name: "t", width: pixels.width, height: pixels.height)
            variant.format = .jpeg
            variant.qualityTarget = 80
            var warnings: [String] = []
            return try ImageEncoding.encode(pixels, variant: variant, iccProfile: nil, budget: budget, warnings: &warnings)
        }
        /// The baseline encode on each of `tables`, rewritten in its smallest scan script as the search's file is.
        func encodes(_ pixels: PixelBuffer, _ outcome: ImageEncoding.Encoded, tables: [JPEGQuantization],
                     trellis: Bool) throws -> [Data] {
            let quality = try XCTUnwrap(outcome.quality), chroma = try XCTUnwrap(outcome.chroma)
            let transform = try JPEGTransform(pixels, chroma: chroma, deringing: [], budget: budget)
            return try tables.map { tables throws in
                let baseline = trellis
                    ? try JPEGEncoder.encode(transform, quality: quality, progressive: false, quantization: tables,
                                             trellis: true, iccProfile: nil, budget: budget)
                    : try JPEGEncoder.encode(pixels, quality: quality, progressive: false, chroma: chroma,
                                             quantization: tables, iccProfile: nil, budget: budget)
                return try JPEGScanOptimizer.smallest(baseline, iccProfile: nil, budget: budget)
            }
        }
        let photo = try photo(width: 512)
        let photoSearched = try searched(photo)
        XCTAssertEqual(photoSearched.chroma, .halved)
        XCTAssertTrue(try encodes(photo, photoSearched, tables: [.perceptual], trellis: true).contains(photoSearched.bytes),
                      "a photograph's file is the trellis encode at q\(photoSearched.quality ?? 0)")

        let edges = ImagingHelpers.sharpColourEdges
        let edgesSearched = try searched(edges)
        XCTAssertEqual(edgesSearched.chroma, .full)
        XCTAssertTrue(try encodes(edges, edgesSearched, tables: [.standard], trellis: false).contains(edgesSearched.bytes),
                      "4:4:4 is libjpeg's own encode at q\(edgesSearched.quality ?? 0)")

        let gradient = ImagingHelpers.gradient(checker: 0)
        XCTAssertTrue(QualitySearch.isSmooth(gradient))
        let gradientSearched = try searched(gradient)
        XCTAssertEqual(gradientSearched.chroma, .halved)
        XCTAssertTrue(try encodes(gradient, gradientSearched, tables: [.perceptual, .standard], trellis: false)
                        .contains(gradientSearched.bytes),
                      "a smooth image's file is libjpeg's own encode at q\(gradientSearched.quality ?? 0)")
    }

    /// Trellis-quantised photographs are ordinary JPEGs: our decoder's damage checks (the seam check looks at the
    /// same block statistics the trellis changes) accept them at every quality, chroma layout and scale.
    func testTrellisFilesPassTheDecodersDamageChecks() throws {
        let pixels = try photo(width: 512)
        for chroma in [JPEGEncoder.Chroma.halved, .full] {
            let transform = try JPEGTransform(pixels, chroma: chroma, deringing: [], budget: budget)
            for quality in stride(from: 30, through: 95, by: 5) {
                let bytes = try JPEGEncoder.encode(transform, quality: quality, progressive: quality % 10 == 0,
                                                   quantization: .perceptual, trellis: true, iccProfile: nil, budget: budget)
                for scale in [8, 5, 4] {
                    XCTAssertNoThrow(try JPEGDecoder.decode(bytes, scaleNumerator: scale, budget: budget),
                                     "\(chroma) q\(quality) at \(scale)/8")
                }
            }
        }
    }
}
