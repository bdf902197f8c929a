import Foundation
import XCTest
@testable import RichPushImaging
import ImagingTestSupport
import TestSupport

/// Palette PNGs for alpha outputs with a SSIMULACRA2 target (issue 29): kept when they hold the target and are
/// smaller, decoded back to exactly the quantised pixels; truecolour otherwise, and unchanged without a target.
final class PalettePNGTests: XCTestCase {
    private var budget: WorkBudget { ImagingHelpers.farBudget }

    private func variant(target: Double?) -> ImageVariant {
        ImageVariant(name: "t", width: 4096, height: 4096, format: .png, qualityTarget: target)
    }

    /// A graphic: four flat colours in quadrants and a disc of a fifth, under a smooth radial alpha (opaque centre,
    /// clear corners). Thousands of distinct RGBA values, so the palette is chosen, not copied.
    private func smoothAlphaGraphic(size: Int = 192) -> PixelBuffer {
        let colours: [[UInt8]] = [[220, 40, 40], [30, 120, 220], [250, 200, 20], [40, 160, 80], [250, 250, 250]]
        var image = PixelBuffer(width: size, height: size, channels: 4)
        let centre = Double(size - 1) / 2
        for y in 0..<size {
            for x in 0..<size {
                let distance = ((Double(x) - centre) * (Double(x) - centre) + (Double(y) - centre) * (Double(y) - centre)).squareRoot()
                let colour = distance < Double(size) / 6 ? colours[4] : colours[(y < size / 2 ? 0 : 2) + (x < size / 2 ? 0 : 1)]
                let alpha = UInt8(max(0, min(255, 255 - distance * 255 / (centre * 1.3))))
                let offset = (y * size + x) * 4
                image.pixels[offset..<(offset + 4)] = ArraySlice(colour + [alpha])
            }
        }
        return image
    }

    /// Photographic noise in every channel, alpha included: no 256 colours come close.
    private func noisyPhoto(size: Int = 128) -> PixelBuffer {
        var random = SplitMix(state: 29)
        var image = PixelBuffer(width: size, height: size, channels: 4)
        for index in image.pixels.indices { image.pixels[index] = UInt8(truncatingIfNeeded: random.next()) }
        return image
    }

    private func encode(_ pixels: PixelBuffer, target: Double?) throws -> ImageEncoding.Encoded {
        var warnings: [String] = []
        return try ImageEncoding.encode(pixels, variant: variant(target: target), iccProfile: nil, budget: budget, warnings: &warnings)
    }

    /// IHDR's colour type byte.
    private func colourType(_ png: Data) -> UInt8 { png[png.startIndex + 25] }

    func testAPalettePNGHoldsTheTargetIsSmallerAndDecodesToTheQuantisedPixels() throws {
        let pixels = smoothAlphaGraphic()
        let truecolour = try PNGEncoder.encode(pixels, iccProfile: nil, budget: budget)
        let encoded = try encode(pixels, target: 80)
        XCTAssertEqual(encoded.format, .png)
        XCTAssertEqual(colourType(encoded.bytes), 3)
        XCTAssertLessThan(encoded.bytes.count, truecolour.count)
        let score = try XCTUnwrap(encoded.score)
        XCTAssertGreaterThanOrEqual(score, 80)
        let decoded = try PNGDecoder.decode(encoded.bytes, limits: ImageLimits(), budget: budget)
        XCTAssertFalse(decoded.isPremultiplied)
        let quantised = try XCTUnwrap(PaletteQuantizer.quantize(pixels, budget: budget))
        XCTAssertEqual(quantised.paletteCount, 256, "a transparent entry and 255 chosen ones")
        XCTAssertEqual(decoded.pixels.pixels, quantised.expanded().pixels)
        XCTAssertNotEqual(decoded.pixels.pixels, pixels.pixels, "quantised, not lossless")
        // The score reported is the decoded file's, over black and white.
        XCTAssertEqual(try PalettePNG.score(decoded.pixels, against: pixels), score, accuracy: 1e-9)
    }

    func testAFewColoursAreKeptExactlyAtFewerBits() throws {
        // Three colours and transparency: 2 bits a pixel, every pixel exact, so the score is 100.
        var pixels = PixelBuffer(width: 67, height: 41, channels: 4)
        let colours: [[UInt8]] = [[0, 0, 0, 0], [255, 0, 0, 255], [0, 0, 255, 128], [10, 200, 30, 255]]
        for pixel in 0..<(67 * 41) {
            pixels.pixels[(pixel * 4)..<(pixel * 4 + 4)] = ArraySlice(colours[(pixel / 7 + pixel / 300) % 4])
        }
        let encoded = try encode(pixels, target: 90)
        XCTAssertEqual(colourType(encoded.bytes), 3)
        XCTAssertEqual(encoded.bytes[encoded.bytes.startIndex + 24], 2, "bit depth")
        XCTAssertEqual(try XCTUnwrap(encoded.score), 100, accuracy: 1e-9)
        let decoded = try PNGDecoder.decode(encoded.bytes, limits: ImageLimits(), budget: budget).pixels
        XCTAssertEqual(decoded.pixels, pixels.pixels)
        XCTAssertEqual(try PaletteQuantizer.quantize(pixels, budget: budget)?.translucentEntryCount, 2,
                       "tRNS lists the transparent and the half-transparent entry, not the opaque ones")
    }

    func testEveryBitDepthDecodesToThePaletteColours() throws {
        var random = SplitMix(state: 3)
        for (count, depth) in [(2, 1), (3, 2), (16, 4), (17, 8), (256, 8)] {
            for width in [1, 13, 64] {
                let palette = (0..<(count * 4)).map { index in
                    index % 4 == 3 && index / 4 >= count / 2 ? 255 : UInt8(truncatingIfNeeded: random.next())
                }
                let indices = (0..<(width * 5)).map { _ in UInt8(random.next() % UInt64(count)) }
                let image = IndexedImage(width: width, height: 5, palette: palette, indices: indices)
                let png = try PNGEncoder.encode(image, iccProfile: nil, budget: budget)
                XCTAssertEqual(colourType(png), 3)
                XCTAssertEqual(png[png.startIndex + 24], UInt8(depth), "\(count) colours")
                let decoded = try PNGDecoder.decode(png, limits: ImageLimits(), budget: budget).pixels
                XCTAssertEqual(decoded.pixels, image.expanded().pixels, "\(count) colours, \(width) wide")
            }
        }
    }

    func testAnImageThatCannotHoldTheTargetKeepsTruecolour() throws {
        let pixels = smoothAlphaGraphic()
        let truecolour = try PNGEncoder.encode(pixels, iccProfile: nil, budget: budget)
        // The palette is smaller but below the target here: the score, not the size, keeps truecolour.
        let quantised = try XCTUnwrap(PaletteQuantizer.quantize(pixels, budget: budget))
        XCTAssertLessThan(try PNGEncoder.encode(quantised, iccProfile: nil, budget: budget).count, truecolour.count)
        XCTAssertLessThan(try PalettePNG.score(quantised.expanded(), against: pixels), 98)
        let encoded = try encode(pixels, target: 98)
        XCTAssertEqual(encoded.bytes, truecolour)
        XCTAssertEqual(colourType(encoded.bytes), 6)
        XCTAssertNil(encoded.score)
        // Narrower than SSIMULACRA2's smallest scale, where it would score any candidate 100.
        // Four colours in random order: a 2-bit palette is far smaller than the truecolour PNG.
        var random = SplitMix(state: 5)
        let colours: [[UInt8]] = [[0, 0, 0, 0], [255, 0, 0, 255], [0, 0, 255, 128], [10, 200, 30, 255]]
        var narrow = PixelBuffer(width: 7, height: 512, channels: 4)
        for pixel in 0..<(7 * 512) {
            narrow.pixels[(pixel * 4)..<(pixel * 4 + 4)] = ArraySlice(colours[Int(random.next() % 4)])
        }
        let encodedNarrow = try encode(narrow, target: 95)
        XCTAssertEqual(colourType(encodedNarrow.bytes), 6)
        XCTAssertNil(encodedNarrow.score)
    }

    /// Noise in every channel: more distinct colours than `photographicShare` of the sample, so no palette is
    /// tried (no quantisation, no comparison) and the truecolour PNG is kept.
    func testAPhotographicImageIsNotQuantised() throws {
        let pixels = noisyPhoto()
        XCTAssertNil(try PaletteQuantizer.quantize(pixels, budget: budget))
        let encoded = try encode(pixels, target: 50)
        XCTAssertEqual(encoded.bytes, try PNGEncoder.encode(pixels, iccProfile: nil, budget: budget))
        XCTAssertNil(encoded.score)
        // A graphic's anti-aliased edges and soft alpha are far below the share: it is quantised. So is a small one,
        // whose soft alpha makes most of its 2,304 pixels distinct: fewer than 16 colours per palette entry.
        XCTAssertNotNil(try PaletteQuantizer.quantize(smoothAlphaGraphic(), budget: budget))
        XCTAssertNotNil(try PaletteQuantizer.quantize(smoothAlphaGraphic(size: 48), budget: budget))
    }

    func testWithoutATargetTheBytesAreTheTruecolourEncoders() throws {
        for pixels in [smoothAlphaGraphic(size: 96), noisyPhoto(size: 64)] {
            let encoded = try encode(pixels, target: nil)
            XCTAssertEqual(encoded.bytes, try PNGEncoder.encode(pixels, iccProfile: nil, budget: budget))
            XCTAssertEqual(colourType(encoded.bytes), 6)
            XCTAssertNil(encoded.score)
        }
    }

    func testTheRenderReportsThePalettesScoreAndReservesItsMemory() throws {
        let size = 320
        let source = try PNGEncoder.encode(smoothAlphaGraphic(size: size), iccProfile: nil, budget: budget)
        var searched = ImageVariant(name: "t", width: size, height: size, qualityTarget: 80)
        let probe = try ImageProbe.probe(source)
        let pipeline = ImagePipeline()
        let plan = pipeline.renderPlan(for: probe, as: searched)
        let meter = RenderMemoryMeter()
        let rendered = try pipeline.renderSynchronously(source, as: searched, probe: probe, plan: plan,
                                                        budget: WorkBudget(deadline: .now + .seconds(120), onCheck: meter.sample))
        XCTAssertEqual(rendered.format, .png)
        XCTAssertEqual(colourType(rendered.bytes), 3)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(rendered.score), 80)
        XCTAssertLessThanOrEqual(meter.peakGrowth, plan.estimatedPeakBytes, "the palette's peak is outside its reservation")
        // The estimate counts the palette's working memory.
        searched.qualityTarget = nil
        XCTAssertGreaterThanOrEqual(plan.estimatedPeakBytes - pipeline.renderPlan(for: probe, as: searched).estimatedPeakBytes,
                                    PalettePNG.workingBytes(width: size, height: size))
    }
}
