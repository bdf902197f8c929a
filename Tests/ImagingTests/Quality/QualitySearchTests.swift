import Foundation
import XCTest
@testable import RichPushImaging

/// Quality by target: the search's output reaches the target with the score it reports, a higher target costs
/// more bytes, the byte budget caps it, the deadline stops it with the best so far, and the target is in the key.
final class QualitySearchTests: XCTestCase {
    /// A small box: debug builds score ~10x slower than release.
    private func variant(target: Double?, maximumBytes: Int? = nil) -> ImageVariant {
        ImageVariant(name: "t", width: 160, height: 160, maximumBytes: maximumBytes, qualityTarget: target)
    }

    /// The render's pixels before encoding: the same resize, encoded losslessly.
    private func resizedPixels(_ source: Data) throws -> PixelBuffer {
        let box = variant(target: nil)
        return try ImagingHelpers.resizedPixels(source, width: box.width, height: box.height)
    }

    func testOutputReachesTheTargetWithTheScoreItReports() throws {
        let source = try ImagingHelpers.data("media/hero.jpg")
        let rendered = try ImagingHelpers.render(source, variant(target: 80))
        let score = try XCTUnwrap(rendered.score)
        XCTAssertGreaterThanOrEqual(score, 80)
        let decoded = try JPEGDecoder.decode(rendered.bytes, budget: ImagingHelpers.farBudget).pixels
        XCTAssertEqual(try SSIMULACRA2(reference: resizedPixels(source)).score(decoded), score, accuracy: 1e-9)
        // The fixed-quality path is unchanged and reports no score.
        let fixed = try ImagingHelpers.render(source, variant(target: nil))
        XCTAssertNil(fixed.score)
        XCTAssertEqual(fixed.quality, 82)
    }

    /// A gradient under a fine checker (not smooth, so searched on the perceptual tables alone) reaches a low target
    /// at any quality: the search goes down to the floor, `minimumQuality` moved to the searched tables' scale (the
    /// same coarseness as the standard tables at 60), not to 60 itself.
    func testFloorIsTheMinimumQualityOnTheSearchedTables() throws {
        let pixels = ImagingHelpers.gradient(checker: 6)
        XCTAssertFalse(QualitySearch.isSmooth(pixels))
        let budget = ImagingHelpers.farBudget
        let search = QualitySearch(pixels: pixels, variant: variant(target: 60), target: 60, budget: budget) { quality, chroma, tables, _ throws(ImageError) in
            try JPEGEncoder.encode(pixels, quality: quality, progressive: false, chroma: chroma, quantization: tables,
                                   iccProfile: nil, budget: budget)
        }
        var warnings: [String] = []
        let outcome = try search.run(warnings: &warnings)
        XCTAssertEqual(outcome.quantization, .perceptual)
        XCTAssertEqual(outcome.quality, JPEGQuantization.perceptual.quality(matchingStandard: 60))
        XCTAssertLessThan(outcome.quality, 60)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(outcome.score), 60)
    }

    /// A smooth image is searched at 4:2:0 on the standard tables too, after the perceptual ones, from the quality
    /// the perceptual search found (moved to the standard scale); a photograph only on the perceptual tables.
    func testSmoothImagesAreSearchedOnBothTables() throws {
        let budget = ImagingHelpers.farBudget
        for (pixels, smooth) in [(ImagingHelpers.gradient(checker: 0), true), (try resizedPixels(ImagingHelpers.data("media/hero.jpg")), false)] {
            XCTAssertEqual(QualitySearch.isSmooth(pixels), smooth)
            var tried: [(quality: Int, tables: JPEGQuantization)] = []
            let search = QualitySearch(pixels: pixels, variant: variant(target: 80), target: 80, budget: budget) { quality, chroma, tables, _ throws(ImageError) in
                tried.append((quality, tables))
                return try JPEGEncoder.encode(pixels, quality: quality, progressive: false, chroma: chroma, quantization: tables,
                                              iccProfile: nil, budget: budget)
            }
            var warnings: [String] = []
            let outcome = try search.run(warnings: &warnings)
            XCTAssertGreaterThanOrEqual(try XCTUnwrap(outcome.score), 80)
            XCTAssertEqual(tried.first?.tables, .perceptual)
            let standard = tried.firstIndex { $0.tables == .standard }
            XCTAssertEqual(standard != nil, smooth, "\(tried)")
            if let standard {
                XCTAssertTrue(tried[..<standard].allSatisfy { $0.tables == .perceptual })
                XCTAssertTrue(tried[standard...].allSatisfy { $0.tables == .standard })
            }
        }
    }

    func testHigherTargetsCostMoreBytes() throws {
        let source = try ImagingHelpers.data("media/story2.jpg")
        let low = try ImagingHelpers.render(source, variant(target: 70))
        let high = try ImagingHelpers.render(source, variant(target: 90))
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(low.score), 70)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(high.score), 90)
        XCTAssertGreaterThan(try XCTUnwrap(high.quality), try XCTUnwrap(low.quality))
        XCTAssertGreaterThan(high.bytes.count, low.bytes.count)
    }

    func testByteBudgetCapsTheSearch() throws {
        let source = try ImagingHelpers.data("media/hero.jpg")
        let unlimited = try ImagingHelpers.render(source, variant(target: 95))
        let limit = unlimited.bytes.count * 2 / 3
        let capped = try ImagingHelpers.render(source, variant(target: 95, maximumBytes: limit))
        XCTAssertLessThanOrEqual(capped.bytes.count, limit)
        XCTAssertLessThan(try XCTUnwrap(capped.score), 95)
        XCTAssertTrue(capped.warnings.contains { $0.contains("below the target 95.0 to meet the byte budget") }, "\(capped.warnings)")
    }

    /// Each encode here takes a second, so after the first step two more would pass the deadline: the search takes
    /// what it has instead of failing with `deadlineExceeded`.
    func testDeadlineStopsTheSearchWithTheBestSoFar() throws {
        let pixels = try resizedPixels(ImagingHelpers.data("media/hero.jpg"))
        let budget = WorkBudget(deadline: .now + .seconds(5))
        var encodes = 0
        let search = QualitySearch(pixels: pixels, variant: variant(target: 99.5), target: 99.5, budget: budget) { quality, chroma, _, _ throws(ImageError) in
            encodes += 1
            // The slow encode this test is about: the search measures it against the real deadline.
            Thread.sleep(forTimeInterval: 2)
            return try JPEGEncoder.encode(pixels, quality: quality, progressive: false, chroma: chroma, iccProfile: nil, budget: budget)
        }
        var warnings: [String] = []
        let outcome = try search.run(warnings: &warnings)
        XCTAssertEqual(encodes, 1)
        XCTAssertEqual(outcome.quality, Self.firstGuess, "the variant's 82, moved to the 4:2:0 candidates' scale")
        XCTAssertTrue(warnings.contains { $0.contains("when the deadline stopped the search") }, "\(warnings)")
    }

    /// Scoring may use half the time left: an encode that takes longer leaves the first guess, unscored, rather
    /// than a missed deadline.
    func testFirstGuessIsTakenUnscoredWhenScoringWouldMissTheDeadline() throws {
        let pixels = try resizedPixels(ImagingHelpers.data("media/hero.jpg"))
        let budget = WorkBudget(deadline: .now + .seconds(3))
        let search = QualitySearch(pixels: pixels, variant: variant(target: 80), target: 80, budget: budget) { quality, chroma, _, _ throws(ImageError) in
            Thread.sleep(forTimeInterval: 1.8)   // the slow encode this test is about, against the real deadline
            return try JPEGEncoder.encode(pixels, quality: quality, progressive: false, chroma: chroma, iccProfile: nil, budget: budget)
        }
        var warnings: [String] = []
        let outcome = try search.run(warnings: &warnings)
        XCTAssertEqual(outcome.quality, Self.firstGuess)
        XCTAssertNil(outcome.score)
        XCTAssertTrue(warnings.contains { $0.contains("not scored") }, "\(warnings)")
    }

    /// Red and blue lines one pixel wide: 4:2:0 averages them to purple at any quality, so the target is reached
    /// only at 4:4:4.
    /// The first step moves by the slope for its direction (`QualitySearch.firstSlope`): up by the rising one when
    /// the first guess falls short of the target, down by the falling one when it passes by more than a point.
    func testTheFirstStepMovesByTheSlopeForItsDirection() throws {
        let pixels = try resizedPixels(ImagingHelpers.data("media/hero.jpg"))
        XCTAssertFalse(QualitySearch.isSmooth(pixels))
        let budget = ImagingHelpers.farBudget
        func tried(target: Double) throws -> [(quality: Int, bytes: Data)] {
            var tried: [(quality: Int, bytes: Data)] = []
            let search = QualitySearch(pixels: pixels, variant: variant(target: target), target: target, budget: budget) { quality, chroma, tables, _ throws(ImageError) in
                let bytes = try JPEGEncoder.encode(pixels, quality: quality, progressive: false, chroma: chroma, quantization: tables,
                                                   iccProfile: nil, budget: budget)
                tried.append((quality, bytes))
                return bytes
            }
            var warnings: [String] = []
            _ = try search.run(warnings: &warnings)
            return tried
        }
        let first = try XCTUnwrap(tried(target: 50).first)
        let firstScore = try SSIMULACRA2(reference: pixels).score(JPEGDecoder.decode(first.bytes, budget: budget).pixels)
        for (offset, rising) in [(2.0, true), (-3.0, false)] {
            let target = firstScore + offset
            let steps = try tried(target: target)
            XCTAssertGreaterThanOrEqual(steps.count, 2, "target \(target)")
            XCTAssertEqual(steps[0].quality, first.quality)
            let slope = QualitySearch.firstSlope(.halved, tables: .perceptual, rising: rising)
            let expected = first.quality + Int(((target + QualitySearch.aimMargin - firstScore) * slope).rounded(.up))
            XCTAssertEqual(steps[1].quality, expected, "rising \(rising): from \(first.quality) at \(firstScore)")
        }
        XCTAssertLessThan(QualitySearch.firstSlope(.halved, tables: .perceptual, rising: true),
                          QualitySearch.firstSlope(.halved, tables: .perceptual, rising: false))
    }

    /// A later search (a smooth image's second tables, or 4:4:4) keeps a candidate only when it is smaller than the
    /// pass already found, so a candidate as large or larger is not scored: here the standard tables' candidates are
    /// made too large to win, and not valid JPEG either, which scoring would refuse.
    func testALaterSearchDoesNotScoreACandidateThatCannotWin() throws {
        let pixels = ImagingHelpers.gradient(checker: 0)
        XCTAssertTrue(QualitySearch.isSmooth(pixels))
        let budget = ImagingHelpers.farBudget
        var standardEncodes = 0
        let search = QualitySearch(pixels: pixels, variant: variant(target: 80), target: 80, budget: budget) { quality, chroma, tables, _ throws(ImageError) in
            guard tables == .perceptual else {
                standardEncodes += 1
                return Data(repeating: 0xFF, count: 4 << 20)
            }
            return try JPEGEncoder.encode(pixels, quality: quality, progressive: false, chroma: chroma, quantization: tables,
                                          iccProfile: nil, budget: budget)
        }
        var warnings: [String] = []
        let outcome = try search.run(warnings: &warnings)
        XCTAssertGreaterThan(standardEncodes, 0, "the second tables were searched")
        XCTAssertEqual(outcome.quantization, .perceptual)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(outcome.score), 80)
        XCTAssertTrue(warnings.isEmpty, "\(warnings)")
    }

    func testSharpColourEdgesAreSearchedAgainAtFullChroma() throws {
        let pixels = ImagingHelpers.sharpColourEdges
        let budget = ImagingHelpers.farBudget
        var chromas: [JPEGEncoder.Chroma] = []
        let search = QualitySearch(pixels: pixels, variant: variant(target: 80), target: 80, budget: budget) { quality, chroma, _, _ throws(ImageError) in
            chromas.append(chroma)
            return try JPEGEncoder.encode(pixels, quality: quality, progressive: false, chroma: chroma, iccProfile: nil, budget: budget)
        }
        var warnings: [String] = []
        let outcome = try search.run(warnings: &warnings)
        XCTAssertEqual(outcome.chroma, .full)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(outcome.score), 80)
        XCTAssertEqual(chromas.first, .halved, "4:2:0 is tried first")
        XCTAssertEqual(chromas.filter { $0 == .halved }.count, 1, "and left when the target is beyond quality 100 on its slope")
        XCTAssertTrue(warnings.isEmpty, "\(warnings)")
        // The bytes are what the search scored: a fresh 4:4:4 encode at its quality.
        XCTAssertEqual(outcome.bytes, try JPEGEncoder.encode(pixels, quality: outcome.quality, progressive: false, chroma: .full,
                                                            iccProfile: nil, budget: budget))
    }

    /// A searched JPEG is the search's baseline file at the chosen quality and chroma, rewritten in its smallest scan
    /// script (`JPEGScanOptimizer`): the same pixels, so the score the search measured, in fewer bytes.
    func testSearchedOutputIsTheFoundFileInItsSmallestScanScript() throws {
        let budget = ImagingHelpers.farBudget
        // At 512 px, where the rewrite is smaller than the baseline file on all three (at 160 px it is not).
        let box = ImageVariant(name: "t", width: 512, height: 512, qualityTarget: 80)
        for name in ["media/hero.jpg", "media/story2.jpg", "media/banner.webp"] {
            let pixels = try ImagingHelpers.resizedPixels(ImagingHelpers.data(name), width: box.width, height: box.height)
            var warnings: [String] = []
            let encoded = try ImageEncoding.encode(pixels, variant: box, iccProfile: nil, budget: budget, warnings: &warnings)
            let quality = try XCTUnwrap(encoded.quality), chroma = try XCTUnwrap(encoded.chroma)
            XCTAssertFalse(QualitySearch.isSmooth(pixels), "photographs: the perceptual tables alone at 4:2:0")
            let tables = JPEGQuantization.searched(chroma, smooth: false)[0]
            let found = chroma == .halved
                ? try JPEGEncoder.encode(try JPEGTransform(pixels, chroma: chroma, deringing: [], budget: budget), quality: quality,
                                         progressive: false, quantization: tables, trellis: true, iccProfile: nil, budget: budget)
                : try JPEGEncoder.encode(pixels, quality: quality, progressive: false, chroma: chroma, quantization: tables,
                                         iccProfile: nil, budget: budget)
            XCTAssertEqual(encoded.bytes, try JPEGScanOptimizer.smallest(found, iccProfile: nil, budget: budget), name)
            XCTAssertLessThan(encoded.bytes.count, found.count, "\(name): rewritten smaller")
            XCTAssertEqual(try JPEGDecoder.decode(encoded.bytes, budget: budget).pixels.pixels,
                           try JPEGDecoder.decode(found, budget: budget).pixels.pixels, "\(name): the pixels scored")
        }
    }

    /// The search encodes 4:2:0 with the perceptual tables, scaled to its quality as libjpeg scales its own; a fixed
    /// quality keeps libjpeg's standard tables, so its outputs stay what they were (and so does a 4:4:4 search).
    func testSearchUsesThePerceptualTablesAndFixedQualityTheStandardOnes() throws {
        let budget = ImagingHelpers.farBudget
        let pixels = try resizedPixels(ImagingHelpers.data("media/story2.jpg"))
        func lumaTable(_ jpeg: Data) throws -> [Int] {
            // The first DQT segment (FF DB): length, then Pq/Tq, then 64 8-bit values in zigzag order.
            let bytes = [UInt8](jpeg)
            let marker = try XCTUnwrap((0..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDB })
            let zigzag = bytes[(marker + 5)..<(marker + 69)].map(Int.init)
            var natural = [Int](repeating: 0, count: 64)
            for (index, position) in Self.zigzagOrder.enumerated() { natural[position] = zigzag[index] }
            return natural
        }
        func scaled(_ table: [UInt32], quality: Int) -> [Int] {
            let factor = quality < 50 ? 5000 / quality : 200 - 2 * quality
            return table.prefix(64).map { min(255, max(1, (Int($0) * factor + 50) / 100)) }
        }
        var warnings: [String] = []
        let searched = try ImageEncoding.encode(pixels, variant: variant(target: 80), iccProfile: nil, budget: budget, warnings: &warnings)
        XCTAssertEqual(searched.chroma, .halved, "a photograph is searched at 4:2:0")
        let perceptual = try XCTUnwrap(JPEGQuantization.perceptual.tables)
        XCTAssertEqual(try lumaTable(searched.bytes), scaled(perceptual, quality: try XCTUnwrap(searched.quality)))
        let fixed = try ImageEncoding.encode(pixels, variant: variant(target: nil), iccProfile: nil, budget: budget, warnings: &warnings)
        let annexK: [UInt32] = [16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56,
                                14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
                                49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99]
        XCTAssertEqual(try lumaTable(fixed.bytes), scaled(annexK, quality: try XCTUnwrap(fixed.quality)))
        let edges = try ImageEncoding.encode(ImagingHelpers.sharpColourEdges, variant: variant(target: 80), iccProfile: nil, budget: budget,
                                             warnings: &warnings)
        XCTAssertEqual(edges.chroma, .full)
        XCTAssertEqual(try lumaTable(edges.bytes), scaled(annexK, quality: try XCTUnwrap(edges.quality)), "4:4:4 keeps the standard tables")
    }

    /// The search's first 4:2:0 quality for a variant of quality 82: the same score on the perceptual tables' scale,
    /// trellis-quantised.
    private static let firstGuess = 82 - JPEGQuantization.perceptual.qualityBelowStandard + QualitySearch.trellisQualityRise

    /// Position in natural order of each zigzag index (the JPEG standard's Figure A.6).
    private static let zigzagOrder = [
        0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21,
        28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61,
        54, 47, 55, 62, 63,
    ]

    func testTargetIsPartOfTheCacheDescription() {
        let fixed = variant(target: nil).cacheDescription
        XCTAssertFalse(fixed.contains("target"))
        XCTAssertNotEqual(variant(target: 80).cacheDescription, fixed)
        XCTAssertNotEqual(variant(target: 80).cacheDescription, variant(target: 85).cacheDescription)
    }
}
