import Foundation
import XCTest
import RichPushCore
@testable import RichPushImaging
import ImagingTestSupport
import TestSupport

/// The lossless scan-script rewrite of the quality search's files (`JPEGScanOptimizer`): the same pixels, fewer
/// bytes, and a choice made from scan sizes that add up exactly.
final class JPEGScanOptimizerTests: XCTestCase {
    private var budget: WorkBudget { ImagingHelpers.farBudget }

    /// The hero photograph at the attachment size, 1038x779.
    private func photo() throws -> PixelBuffer {
        try ImagingHelpers.resizedPixels(ImagingHelpers.data("media/hero.jpg"), width: 1038, height: 1038)
    }

    private func textOnWhite() throws -> PixelBuffer {
        try PNGDecoder.decode(ImagingHelpers.data("imaging/text_on_white.png"), limits: ImageLimits(), budget: budget).pixels
    }

    private func baseline(_ pixels: PixelBuffer, chroma: JPEGEncoder.Chroma, progressive: Bool = false,
                          iccProfile: [UInt8]? = nil) throws -> Data {
        try JPEGEncoder.encode(pixels, quality: 75, progressive: progressive, chroma: chroma, quantization: .perceptual,
                               iccProfile: iccProfile, budget: budget)
    }

    /// Every plan of mozjpeg's search space, at both chroma layouts: libjpeg accepts the script (it rejects one that
    /// sends a bit twice or leaves one out), the file decodes to the baseline file's pixels exactly, and its scan
    /// sizes plus the headers before the first scan add up to the file.
    func testEveryPlanIsAValidScriptOfTheSamePixels() throws {
        for (pixels, chroma) in [(try photo(), JPEGEncoder.Chroma.halved), (try textOnWhite(), .full)] {
            let jpeg = try baseline(pixels, chroma: chroma)
            let expected = try JPEGDecoder.decode(jpeg, budget: budget).pixels.pixels
            let transcoder = try JPEGTranscoder(jpeg)
            XCTAssertEqual(transcoder.components, 3)
            for split in [nil, 2, 5, 8, 12, 18] {
                for refinedBits in 0...2 {
                    let plan = JPEGScanScript.Plan(split: split, refinedBits: refinedBits)
                    let script = JPEGScanScript(plans: [plan, plan, plan])
                    let bytes = try transcoder.write(script, iccProfile: nil)
                    XCTAssertEqual(try JPEGDecoder.decode(Data(bytes), budget: budget).pixels.pixels, expected, "\(chroma) \(plan)")
                    let sizes = try XCTUnwrap(JPEGScanScript.scanSizes(of: bytes))
                    XCTAssertEqual(sizes.count, script.scans.count)
                    let firstScan = try XCTUnwrap(firstTablesOrScan(bytes))
                    XCTAssertEqual(firstScan + sizes.reduce(0, +) + 2, bytes.count, "headers, scans and the EOI")
                }
            }
        }
    }

    /// What the choice rests on: a scan's size depends only on its own component's plan, so the size of a
    /// combination written whole is the sum of its scans measured in the candidates.
    func testAScanMeasuredInOneScriptHasTheSameSizeInAnother() throws {
        let jpeg = try baseline(try photo(), chroma: .halved)
        let transcoder = try JPEGTranscoder(jpeg)
        let (photograph, text) = (JPEGScanOptimizer.candidates[0], JPEGScanOptimizer.candidates[1])
        var measured: [JPEGScanScript.Scan: Int] = [:]
        var header = 0
        for script in JPEGScanOptimizer.candidateScripts(components: 3) {
            let bytes = try transcoder.write(script, iccProfile: nil)
            JPEGScanOptimizer.record(script, writtenAs: bytes, into: &measured)
            XCTAssertTrue(script.scans.allSatisfy { measured[$0] != nil }, "every scan of the candidate measured")
            header = try XCTUnwrap(firstTablesOrScan(bytes))
        }
        let mixed = JPEGScanScript(plans: [text.luma, photograph.chroma, text.chroma])
        let predicted = header + mixed.scans.reduce(0) { $0 + (measured[$1] ?? .max / 2) } + 2
        XCTAssertEqual(try transcoder.write(mixed, iccProfile: nil).count, predicted)
    }

    /// The rewrite keeps the pixels and the colour profile, and is smaller than both the baseline file and libjpeg's
    /// simple progression: by at least 0.5% on a photograph at 4:2:0 and on text at 4:4:4 (measured 1.2% on each).
    func testTheRewriteIsSmallerThanBaselineAndSimpleProgressionWithTheSamePixels() throws {
        let profile = try XCTUnwrap(try JPEGDecoder.decode(ImagingHelpers.data("imaging/icc_srgb.jpg"), budget: budget).iccProfile)
        for (pixels, chroma) in [(try photo(), JPEGEncoder.Chroma.halved), (try textOnWhite(), .full)] {
            let jpeg = try baseline(pixels, chroma: chroma, iccProfile: profile)
            let progressive = try baseline(pixels, chroma: chroma, progressive: true, iccProfile: profile)
            let rewritten = try JPEGScanOptimizer.smallest(jpeg, iccProfile: profile, budget: budget)
            let decoded = try JPEGDecoder.decode(rewritten, budget: budget)
            XCTAssertEqual(decoded.pixels.pixels, try JPEGDecoder.decode(jpeg, budget: budget).pixels.pixels, "\(chroma)")
            XCTAssertEqual(decoded.iccProfile, profile)
            XCTAssertLessThan(Double(rewritten.count), 0.995 * Double(min(jpeg.count, progressive.count)),
                              "\(chroma): baseline \(jpeg.count), progressive \(progressive.count)")
        }
    }

    /// Each component takes the plan its scans measured smallest in, whichever candidate measured it: the
    /// photograph's luma the refined one, whose first scans code its many small values as zero runs, with the
    /// plain plan's chroma, a combination smaller than either candidate; a smooth gradient's luma the plain one.
    func testEachComponentTakesThePlanItsScansMeasuredSmallestIn() throws {
        let (plain, refined) = (JPEGScanOptimizer.candidates[0], JPEGScanOptimizer.candidates[1])
        for (pixels, expected) in [(try photo(), [refined.luma, plain.chroma, plain.chroma]),
                                   (ImagingHelpers.gradient(checker: 0), [plain.luma, plain.chroma, plain.chroma])] {
            let jpeg = try baseline(pixels, chroma: .halved)
            let transcoder = try JPEGTranscoder(jpeg)
            var measured: [JPEGScanScript.Scan: Int] = [:]
            var candidateSizes: [Int] = []
            for script in JPEGScanOptimizer.candidateScripts(components: 3) {
                let bytes = try transcoder.write(script, iccProfile: nil)
                candidateSizes.append(bytes.count)
                JPEGScanOptimizer.record(script, writtenAs: bytes, into: &measured)
            }
            XCTAssertEqual(JPEGScanOptimizer.combination(components: 3, measured: measured), JPEGScanScript(plans: expected))
            let combined = try transcoder.write(JPEGScanScript(plans: expected), iccProfile: nil).count
            let rewritten = try JPEGScanOptimizer.smallest(jpeg, iccProfile: nil, budget: budget)
            XCTAssertEqual(rewritten.count, min(jpeg.count, combined, candidateSizes.min() ?? .max))
            XCTAssertLessThanOrEqual(combined, candidateSizes.min() ?? 0, "the combination is never larger than a candidate")
        }
    }

    /// The rewrite holds the file's coefficients (2 bytes a sample) and its written files, within the transform's
    /// reservation, whose place it takes after a search; measured at 4:4:4, the larger layout.
    func testTheRewriteStaysWithinTheTransformsReservation() throws {
        let pixels = try textOnWhite()
        let jpeg = try baseline(pixels, chroma: .full)
        let meter = RenderMemoryMeter()
        _ = try JPEGScanOptimizer.smallest(jpeg, iccProfile: nil, budget: WorkBudget(deadline: .now + .seconds(120), onCheck: meter.sample))
        let coefficients = (pixels.width + 7) / 8 * ((pixels.height + 7) / 8) * 3 * 64 * MemoryLayout<Int16>.size
        XCTAssertLessThanOrEqual(meter.peakGrowth, JPEGTransform.workingBytes(width: pixels.width, height: pixels.height))
        XCTAssertGreaterThan(meter.peakGrowth, coefficients, "measured while the coefficients were held")
    }

    /// A deadline already past leaves the file as it was, for the caller to report; a cancelled render stops.
    func testTheDeadlineKeepsTheFileAndCancellationStops() throws {
        let jpeg = try baseline(try photo(), chroma: .halved)
        XCTAssertEqual(try JPEGScanOptimizer.smallest(jpeg, iccProfile: nil, budget: WorkBudget(deadline: .now - .seconds(1))), jpeg)
        let cancellation = BlockingCancellation()
        cancellation.cancel()
        XCTAssertThrowsError(try JPEGScanOptimizer.smallest(jpeg, iccProfile: nil, budget: WorkBudget(deadline: .now + .seconds(60), cancellation: cancellation))) {
            XCTAssertEqual($0 as? ImageError, .cancelled)
        }
    }

    /// Bytes that are not a whole libjpeg file give no scan sizes, and a file that is not a JPEG fails to read.
    func testMalformedBytesGiveNoScanSizesAndFailToRead() throws {
        let jpeg = [UInt8](try baseline(try photo(), chroma: .halved))
        XCTAssertNil(JPEGScanScript.scanSizes(of: Array(jpeg.prefix(jpeg.count / 2))), "cut short")
        XCTAssertNil(JPEGScanScript.scanSizes(of: [0x89, 0x50, 0x4E, 0x47]), "not a JPEG")
        do {
            _ = try JPEGTranscoder(Data("<html>".utf8)).components
            XCTFail("an HTML page was read as a JPEG")
        } catch {
            guard case .encodeFailed = error else { return XCTFail("\(error)") }
        }
    }

    /// The offset of the first DHT or SOS: everything before it (SOI, APP, DQT, SOF) is the file's header.
    private func firstTablesOrScan(_ bytes: [UInt8]) -> Int? {
        var offset = 2
        while offset + 3 < bytes.count {
            if bytes[offset + 1] == 0xC4 || bytes[offset + 1] == 0xDA { return offset }
            offset += 2 + (Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3]))
        }
        return nil
    }
}
