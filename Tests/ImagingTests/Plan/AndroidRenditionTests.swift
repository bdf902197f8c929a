import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushImaging
import TestSupport

/// The Android renditions (`ImageVariant.bigPicture`, `.largeIcon`) of sources as campaigns send them, checked
/// against what Android's SDKs take (`AndroidDeviceLimits`), and the WebP encoder they may use.
final class AndroidRenditionTests: XCTestCase {
    /// `hero.jpg` (a 1600x1200 photograph) repeated, mirrored at every other copy so no seam is a hard edge, to
    /// `width` x `height`: a campaign-photo-sized image with a photograph's detail.
    private func tiledPhoto(width: Int, height: Int) throws -> PixelBuffer {
        let hero = try JPEGDecoder.decode(ImagingHelpers.data("media/hero.jpg"), budget: ImagingHelpers.farBudget).pixels
        var image = PixelBuffer(width: width, height: height, channels: 3)
        image.pixels.withUnsafeMutableBufferPointer { output in
            hero.pixels.withUnsafeBufferPointer { source in
                for y in 0..<height {
                    let row = (y / hero.height) % 2 == 0 ? y % hero.height : hero.height - 1 - y % hero.height
                    for x in 0..<width {
                        let column = (x / hero.width) % 2 == 0 ? x % hero.width : hero.width - 1 - x % hero.width
                        let from = (row * hero.width + column) * 3, to = (y * width + x) * 3
                        output[to] = source[from]
                        output[to + 1] = source[from + 1]
                        output[to + 2] = source[from + 2]
                    }
                }
            }
        }
        return image
    }

    /// A PNG of `image` enlarged `factor` times by repeating pixels, as a graphic exported at a higher scale is:
    /// rows filtered None, compressed by libdeflate (the encoder's adaptive filters are not what is tested here).
    private func enlargedPNG(_ image: PixelBuffer, by factor: Int) throws -> Data {
        let width = image.width * factor, rowBytes = width * 3 + 1
        var rows = [UInt8](repeating: 0, count: rowBytes * image.height * factor)
        rows.withUnsafeMutableBufferPointer { rows in
            image.pixels.withUnsafeBufferPointer { source in
                for y in 0..<image.height {
                    let first = y * factor * rowBytes + 1
                    for x in 0..<width {
                        let from = (y * image.width + x / factor) * 3
                        rows[first + x * 3] = source[from]
                        rows[first + x * 3 + 1] = source[from + 1]
                        rows[first + x * 3 + 2] = source[from + 2]
                    }
                    for copy in 1..<factor {
                        UnsafeMutableRawPointer(rows.baseAddress! + first + copy * rowBytes)
                            .copyMemory(from: rows.baseAddress! + first, byteCount: rowBytes - 1)
                    }
                }
            }
        }
        let stream = try XCTUnwrap(PNGCompression.libdeflateStream(of: rows))
        return PNGFile.file(header: PNGFile.header(width: width, height: image.height * factor, colourType: 2),
                            chunks: [("IDAT", stream)])
    }

    private func assertAndroidRendition(_ rendered: RenderedImage, of variant: ImageVariant,
                                        file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertLessThanOrEqual(rendered.bytes.count, try XCTUnwrap(variant.maximumBytes), file: file, line: line)
        XCTAssertLessThan(rendered.bytes.count, AndroidDeviceLimits.maximumImageBytes, file: file, line: line)
        XCTAssertLessThanOrEqual(rendered.width, variant.width, file: file, line: line)
        XCTAssertLessThanOrEqual(rendered.height, variant.height, file: file, line: line)
        let larger = rendered.source.orientedWidth > variant.width || rendered.source.orientedHeight > variant.height
        XCTAssertTrue(!larger || rendered.width == variant.width || rendered.height == variant.height,
                      "a larger source fills its box on one side", file: file, line: line)
        let decoded = try ImagingHelpers.decodeRGBA(rendered.bytes)
        XCTAssertEqual([decoded.width, decoded.height], [rendered.width, rendered.height], file: file, line: line)
    }

    func testCampaignSizedSourcesGiveABigPictureUnderItsBudget() throws {
        let jpeg = try ImagingHelpers.encodeJPEG(try tiledPhoto(width: 4032, height: 3024), quality: 92)   // 12 MP
        XCTAssertGreaterThan(jpeg.count, 1_000_000, "a campaign photo, not a thumbnail")
        // 36 MP: a graphic exported at four times its size, the kind of PNG that stays under the 10 MB source cap.
        let png = try enlargedPNG(try tiledPhoto(width: 1800, height: 1250), by: 4)
        let webp = try WebPEncoder.encode(try tiledPhoto(width: 3000, height: 2000), quality: 90, iccProfile: nil,
                                          budget: ImagingHelpers.farBudget)
        for (name, source) in [("12 MP JPEG", jpeg), ("36 MP PNG", png), ("WebP", webp)] {
            let rendered = try ImagingHelpers.render(source, .bigPicture)
            XCTAssertLessThan(rendered.bytes.count, 400_000, name)
            try assertAndroidRendition(rendered, of: .bigPicture)
            try assertAndroidRendition(try ImagingHelpers.render(source, .largeIcon), of: .largeIcon)
        }
    }

    func testWebPKeepsAlphaAndTheColourProfileAndDecodes() throws {
        var image = PixelBuffer(width: 64, height: 48, channels: 4)
        for index in 0..<(64 * 48) {
            image.pixels[index * 4] = UInt8(index % 64 * 4)
            image.pixels[index * 4 + 1] = 90
            image.pixels[index * 4 + 2] = UInt8(index / 64 * 5)
            image.pixels[index * 4 + 3] = index % 64 < 32 ? 255 : 0
        }
        let profile = [UInt8](repeating: 7, count: 600)
        let bytes = try WebPEncoder.encode(image, quality: 90, iccProfile: profile, budget: ImagingHelpers.farBudget)
        let probe = try ImageProbe.probe(bytes)
        XCTAssertEqual([probe.width, probe.height], [64, 48])
        XCTAssertEqual(probe.format, .webp)
        let decoded = try WebPDecoder.decode(bytes, layout: .rgba, budget: ImagingHelpers.farBudget).pixels
        XCTAssertEqual(ImagingHelpers.pixel(decoded, 5, 5)[3], 255)
        XCTAssertEqual(ImagingHelpers.pixel(decoded, 50, 5)[3], 0, "alpha survives")
        let carried = bytes.withUnsafeBytes { raw in
            WebPDecoder.iccProfile(raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: raw.count)
        }
        XCTAssertNil(carried, "a profile that is not an RGB ICC profile is not read back as one")
        XCTAssertNotNil(bytes.range(of: Data("ICCP".utf8)), "the profile is in its own chunk")
    }

    func testWebPEncodeStopsAtTheDeadline() throws {
        let photo = try tiledPhoto(width: 1440, height: 1080)
        XCTAssertThrowsError(try WebPEncoder.encode(photo, quality: 80, iccProfile: nil,
                                                    budget: WorkBudget(deadline: .now - .seconds(1)))) { error in
            XCTAssertEqual(error as? ImageError, .deadlineExceeded)
        }
    }

    func testWebPIsChosenOnlyWhenSmallerAtTheSameTarget() throws {
        let source = try ImagingHelpers.encodeJPEG(try tiledPhoto(width: 480, height: 360))
        // Without a target there is no score to compare at: what `automatic` writes.
        XCTAssertEqual(try ImagingHelpers.render(source, .bigPicture).format, .jpeg)
        for variant in [ImageVariant.bigPicture, .largeIcon] {
            var searched = variant
            searched.qualityTarget = 80
            let chosen = try ImagingHelpers.render(source, searched)
            var jpegOnly = searched
            jpegOnly.format = .automatic
            let jpeg = try ImagingHelpers.render(source, jpegOnly)
            XCTAssertLessThanOrEqual(chosen.bytes.count, jpeg.bytes.count, variant.name)
            XCTAssertGreaterThanOrEqual(try XCTUnwrap(chosen.score, variant.name), 80, "never below its target")
            if chosen.format == .webp {
                var webpOnly = searched
                webpOnly.format = .webp
                XCTAssertEqual(try ImagingHelpers.render(source, webpOnly).bytes, chosen.bytes, variant.name)
            } else {
                XCTAssertEqual(chosen.bytes, jpeg.bytes, variant.name)
            }
        }
    }

    func testWebPSearchReachesItsTargetAtTheLowestQualityItTried() throws {
        let photo = try tiledPhoto(width: 640, height: 480)
        var variant = ImageVariant(name: "t", width: 640, height: 480, format: .webp)
        variant.qualityTarget = 85
        var warnings: [String] = []
        let found = try WebPQualitySearch(pixels: photo, variant: variant, target: 85, iccProfile: nil,
                                          budget: ImagingHelpers.farBudget).run(warnings: &warnings)
        XCTAssertEqual(warnings, [])
        let score = try SSIMULACRA2(reference: photo).score(
            WebPDecoder.decode(found.bytes, layout: .rgb, budget: ImagingHelpers.farBudget).pixels)
        XCTAssertGreaterThanOrEqual(score, 85)
        XCTAssertEqual(found.score.map { ($0 * 1000).rounded() }, (score * 1000).rounded())
        let lower = try WebPEncoder.encode(photo, quality: found.quality - 1, iccProfile: nil, budget: ImagingHelpers.farBudget)
        XCTAssertLessThanOrEqual(found.bytes.count, lower.count + found.bytes.count / 5,
                                 "one quality lower is not much smaller: the search did not stop far above its target")
    }

    func testAnimatedGIFBecomesItsFirstFrameForAStillVariant() throws {
        let animation = MediaSamples.animatedGIF(side: 600, frames: 8)   // black, red, green, blue, ...
        XCTAssertEqual(try ImagingHelpers.render(animation, .attachment).format, .gif, "iOS plays it: passed through")
        for variant in [ImageVariant.bigPicture, .largeIcon] {
            let still = try ImagingHelpers.render(animation, variant)
            XCTAssertNotEqual(still.format, .gif, variant.name)
            try assertAndroidRendition(still, of: variant)
            let pixels = try ImagingHelpers.decodeRGBA(still.bytes)
            let centre = ImagingHelpers.pixel(pixels, pixels.width / 2, pixels.height / 2)
            XCTAssertLessThan(centre[0] + centre[1] + centre[2], 30, "the first frame is black: \(centre)")
        }
    }

    func testGIFFirstFrameIsPlacedOnATransparentScreen() throws {
        let bytes = Data(ImagingHelpers.gif(screenWidth: 8, screenHeight: 8, frames: [(4, 4, 4, 4), (0, 0, 8, 8)]))
        let decoded = try GIFDecoder.firstFrame(bytes, limits: ImageLimits(), budget: ImagingHelpers.farBudget).pixels
        XCTAssertEqual([decoded.width, decoded.height, decoded.channels], [8, 8, 4])
        XCTAssertEqual(ImagingHelpers.pixel(decoded, 1, 1), [0, 0, 0, 0], "outside the frame: transparent")
        XCTAssertEqual(ImagingHelpers.pixel(decoded, 4, 4), [0, 0, 0, 255], "the frame's first pixel: index 0")
        XCTAssertEqual(ImagingHelpers.pixel(decoded, 5, 4), [255, 255, 255, 255], "its second: index 1")
        let truncated = Data(ImagingHelpers.gif(screenWidth: 8, screenHeight: 8, frames: [(0, 0, 8, 8)], pixelCount: 10))
        XCTAssertThrowsError(try GIFDecoder.firstFrame(truncated, limits: ImageLimits(), budget: ImagingHelpers.farBudget))
    }
}
