import Foundation
import XCTest
@testable import RichPushImaging
import ImagingTestSupport
import TestSupport

/// `RenderPlan` is the one place a render's choices are made: the decoders do what it says, and its memory
/// estimate (what `ImagePipeline.render` reserves) bounds what the render really holds, for every corpus file.
final class RenderPlanTests: XCTestCase {
    /// The fixture folders the imaging tests read (the conformance ones are copies of /work/shared/conformance).
    private static let corpusFolders = ["imaging", "media", "conformance/jpeg", "conformance/png", "conformance/webp"]

    /// A thumbnail small enough for JPEG's 1/8 scale, PNG's box shrink and libwebp's scaler on the larger files.
    private static let thumbnail = ImageVariant(name: "thumbnail", width: 96, height: 64, fit: .cover)

    /// Every corpus file the pipeline renders (the refused ones are other tests' business), with its name.
    private func corpus() throws -> [(name: String, bytes: Data)] {
        try Self.corpusFolders.flatMap { folder in
            try FileManager.default.contentsOfDirectory(atPath: fixture(folder).path).sorted().compactMap { name in
                guard let bytes = try? Data(contentsOf: fixture(folder).appendingPathComponent(name)),
                      (try? ImageProbe.probe(bytes)) != nil else { return nil }
                return ("\(folder)/\(name)", bytes)
            }
        }
    }

    func testTheEstimateBoundsTheMeasuredPeakAndTheDecoderFollowsThePlanForEveryCorpusFile() throws {
        let pipeline = ImagePipeline()
        var rendered = 0, largestShare = 0.0, largestShareName = ""
        for (name, bytes) in try corpus() {
            let probe = try ImageProbe.probe(bytes)
            for variant in [ImageVariant.attachment, Self.thumbnail] {
                let plan = pipeline.renderPlan(for: probe, as: variant)
                let meter = RenderMemoryMeter()
                let budget = WorkBudget(deadline: .now + .seconds(120), onCheck: meter.sample)
                guard let image = try? pipeline.renderSynchronously(bytes, as: variant, probe: probe, plan: plan, budget: budget) else {
                    continue
                }
                rendered += 1
                let label = "\(name) as \(variant.name)"
                XCTAssertEqual(image.plan, plan, label)
                XCTAssertEqual([image.decodedWidth, image.decodedHeight], [plan.decodedWidth, plan.decodedHeight],
                               "\(label): the decoder did not decode at the planned size")
                XCTAssertLessThanOrEqual(meter.peakGrowth, plan.estimatedPeakBytes, "\(label): the peak is outside its reservation")
                let share = Double(meter.peakGrowth) / Double(plan.estimatedPeakBytes)
                if share > largestShare { (largestShare, largestShareName) = (share, label) }
            }
        }
        XCTAssertGreaterThan(rendered, 300, "the corpus was not found")
        print("RenderPlan: \(rendered) renders; the largest measured peak is \(Int(largestShare * 100))% of its estimate (\(largestShareName))")
    }

    func testAChangedDecisionShowsInBothTheDecodeAndTheReservation() throws {
        // A 1200x900 RGB PNG into the thumbnail: box-shrunk by 4 while decoding, unless the pipeline turns that off.
        let bytes = PNGBomb.trailingZeros(width: 1200, height: 900, trailingZeroBytes: 0, interlaced: false)
        let probe = try ImageProbe.probe(bytes)
        let shrinking = ImagePipeline()
        var fullSize = ImagePipeline()
        fullSize.resizesPNGWhileDecoding = false

        let shrunkPlan = shrinking.renderPlan(for: probe, as: Self.thumbnail)
        guard case .png(let factor, _) = shrunkPlan.decode else { return XCTFail("\(shrunkPlan.decode)") }
        XCTAssertGreaterThan(factor, 1)
        XCTAssertFalse(shrunkPlan.resizesRowsWhileDecoding, "a box shrink, then the resize on the shrunk image")
        let shrunk = try shrinking.renderSynchronously(bytes, as: Self.thumbnail, budget: ImagingHelpers.farBudget)
        XCTAssertEqual(shrunk.decodedWidth, (1200 + factor - 1) / factor)
        XCTAssertEqual(shrunk.plan, shrunkPlan)

        let fullPlan = fullSize.renderPlan(for: probe, as: Self.thumbnail)
        XCTAssertEqual(fullPlan.decode, .png(shrinkFactor: 1, inflatesWholeImage: true))
        XCTAssertFalse(fullPlan.resizesRowsWhileDecoding)
        let whole = try fullSize.renderSynchronously(bytes, as: Self.thumbnail, budget: ImagingHelpers.farBudget)
        XCTAssertEqual([whole.decodedWidth, whole.decodedHeight], [1200, 900], "the decoder followed the changed plan")
        XCTAssertGreaterThanOrEqual(fullPlan.estimatedPeakBytes, 2 * 1200 * 900 * 3, "the reservation followed it too")
        // Both inflate the whole filtered image (the fast path); only the full-size decode holds the decoded one too.
        XCTAssertLessThan(shrunkPlan.estimatedPeakBytes, fullPlan.estimatedPeakBytes - 1200 * 900 * 3)
    }

    func testAJPEGDecodesAtThePlannedDCTScale() throws {
        let bytes = try ImagingHelpers.data("media/hero.jpg")
        let probe = try ImageProbe.probe(bytes)
        let plan = ImagePipeline().renderPlan(for: probe, as: Self.thumbnail)
        guard case .jpeg(let numerator) = plan.decode else { return XCTFail("\(plan.decode)") }
        XCTAssertLessThan(numerator, 8, "a thumbnail of \(probe.width)x\(probe.height) decodes scaled")
        XCTAssertTrue(plan.resizesRowsWhileDecoding, "and resizes its rows as they arrive")
        let image = try ImagingHelpers.render(bytes, Self.thumbnail)
        XCTAssertEqual(image.decodedWidth, JPEGDecoder.scaledSize(probe.width, numerator: numerator))
        XCTAssertEqual(image.decodedHeight, JPEGDecoder.scaledSize(probe.height, numerator: numerator))
    }

    func testTheProbeTellsHowAWebPIsCodedAndThePlanCountsWhatLibwebpHolds() throws {
        let codings: [(String, ImageProbe.WebPCoding)] = [
            ("conformance/webp/bryce.webp", .lossy(alpha: nil)),
            ("conformance/webp/lossless_color_transform.webp", .lossless),
            ("conformance/webp/alpha_no_compression.webp", .lossy(alpha: .raw)),
            ("conformance/webp/alpha_filter_0_method_1.webp", .lossy(alpha: .lossless)),
            ("imaging/animated.webp", .animated),
        ]
        for (name, coding) in codings {
            XCTAssertEqual(try ImageProbe.probe(ImagingHelpers.data(name)).webpCoding, coding, name)
        }
        // Into the thumbnail through libwebp's scaler: a lossless file still holds its whole ARGB image, a lossy
        // one full-width macroblock rows (about 2 KB per 16-pixel column).
        let lossless = try ImageProbe.probe(ImagingHelpers.data("conformance/webp/lossless_color_transform.webp"))
        XCTAssertGreaterThan(ImagePipeline().renderPlan(for: lossless, as: Self.thumbnail).estimatedPeakBytes,
                             lossless.width * lossless.height * 4)
        let lossy = try ImageProbe.probe(ImagingHelpers.data("conformance/webp/bryce.webp"))
        XCTAssertGreaterThan(ImagePipeline().renderPlan(for: lossy, as: Self.thumbnail).estimatedPeakBytes,
                             lossy.width / 16 * 1_994)
    }

    func testAPNGPlanChoosesTheFastPathAndReservesItsInflatedImage() throws {
        // 1200x900 RGB: 900 rows of a filter byte and 3600 bytes, inflated whole even while box-shrinking.
        let probe = try ImageProbe.probe(PNGBomb.trailingZeros(width: 1200, height: 900, trailingZeroBytes: 0, interlaced: false))
        let plan = ImagePipeline().renderPlan(for: probe, as: Self.thumbnail)
        guard case .png(let factor, true) = plan.decode else { return XCTFail("\(plan.decode)") }
        XCTAssertGreaterThan(factor, 1)
        XCTAssertGreaterThan(plan.estimatedPeakBytes, 900 * 3601 + RenderPlan.libraryStateBytes)
        // Adam7 is libpng's alone: it streams, and nothing is reserved for an inflated image.
        let interlaced = try ImageProbe.probe(PNGBomb.trailingZeros(width: 1200, height: 900, trailingZeroBytes: 0, interlaced: true))
        let streamed = ImagePipeline().renderPlan(for: interlaced, as: Self.thumbnail)
        guard case .png(_, false) = streamed.decode else { return XCTFail("\(streamed.decode)") }
        // Over the fast path's cap (48 MB of rows): streamed too.
        var huge = probe
        (huge.width, huge.height) = (5000, 4000)
        guard case .png(_, false) = ImagePipeline().renderPlan(for: huge, as: Self.thumbnail).decode else {
            return XCTFail("a 60 MB filtered image takes the fast path")
        }
    }
}
