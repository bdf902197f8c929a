import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushImaging

final class ResizeTests: XCTestCase {
    /// Gradients plus one-pixel lines and a checker patch: what ringing and aliasing show up on.
    private func syntheticImage(width: Int, height: Int) -> PixelBuffer {
        var image = PixelBuffer(width: width, height: height, channels: 3)
        for y in 0..<height {
            for x in 0..<width {
                var red = x * 255 / (width - 1), green = y * 255 / (height - 1), blue = (x + y) * 255 / (width + height - 2)
                if x % 37 == 0 { red = 255; green = 255; blue = 255 }
                if y % 53 == 0 { red = 0; green = 0; blue = 0 }
                if x > width / 2, x < width / 2 + 64, y > height / 2, y < height / 2 + 64, (x / 4 + y / 4) % 2 == 0 {
                    red = 20; green = 200; blue = 90
                }
                let index = (y * width + x) * 3
                image.pixels[index] = UInt8(red); image.pixels[index + 1] = UInt8(green); image.pixels[index + 2] = UInt8(blue)
            }
        }
        return image
    }

    /// Float reference Lanczos3: same geometry, double precision, no intermediate rounding.
    private func referenceResize(_ image: PixelBuffer, width: Int, height: Int) -> [Double] {
        let channels = image.channels
        var horizontal = [Double](repeating: 0, count: image.height * width * channels)
        for x in 0..<width {
            let (start, weights) = ResamplingKernel.floatWeights(index: x, sourceSize: image.width, offset: 0,
                                                                 extent: Double(image.width), outputSize: width)
            for y in 0..<image.height {
                for channel in 0..<channels {
                    var sum = 0.0
                    for (tap, weight) in weights.enumerated() {
                        sum += weight * Double(image.pixels[(y * image.width + start + tap) * channels + channel])
                    }
                    horizontal[(y * width + x) * channels + channel] = sum
                }
            }
        }
        var output = [Double](repeating: 0, count: height * width * channels)
        for y in 0..<height {
            let (start, weights) = ResamplingKernel.floatWeights(index: y, sourceSize: image.height, offset: 0,
                                                                 extent: Double(image.height), outputSize: height)
            for x in 0..<width * channels {
                var sum = 0.0
                for (tap, weight) in weights.enumerated() { sum += weight * horizontal[(start + tap) * width * channels + x] }
                output[y * width * channels + x] = min(255, max(0, sum))
            }
        }
        return output
    }

    private func psnr(_ image: PixelBuffer, _ reference: [Double]) -> Double {
        let squared = zip(image.pixels, reference).map { (Double($0) - $1) * (Double($0) - $1) }.reduce(0, +)
        let mse = squared / Double(reference.count)
        return 10 * log10(255 * 255 / max(mse, 1e-12))
    }

    func testLanczosMatchesFloatReference() throws {
        let image = syntheticImage(width: 450, height: 300)
        for (width, height) in [(151, 101), (225, 150), (437, 291)] {
            let plan = ResizePlan.make(width: 450, height: 300, swapsAxes: false, boxWidth: width, boxHeight: height, fit: .contain)
            let resized = try Resampler.lanczos(image, plan: plan, budget: ImagingHelpers.farBudget)
            XCTAssertEqual([resized.width, resized.height], [plan.outputWidth, plan.outputHeight])
            let value = psnr(resized, referenceResize(image, width: plan.outputWidth, height: plan.outputHeight))
            XCTAssertGreaterThanOrEqual(value, 40, "\(width)x\(height): \(value) dB")
        }
    }

    func testFlatAreasStayExactlyFlat() throws {
        var image = PixelBuffer(width: 97, height: 61, channels: 3)
        for index in stride(from: 0, to: image.pixels.count, by: 3) {
            image.pixels[index] = 200; image.pixels[index + 1] = 17; image.pixels[index + 2] = 99
        }
        let plan = ResizePlan.make(width: 97, height: 61, swapsAxes: false, boxWidth: 30, boxHeight: 30, fit: .contain)
        let resized = try Resampler.resize(image, plan: plan, budget: ImagingHelpers.farBudget)
        XCTAssertEqual(Set(stride(from: 0, to: resized.pixels.count, by: 3).map { resized.pixels[$0 ..< $0 + 3].map(Int.init) }),
                       [[200, 17, 99]])
    }

    func testExtremeAspectRatiosNeverGiveZeroSizes() throws {
        let wide = PixelBuffer(width: 12000, height: 8, channels: 3)
        let bytes = try ImagingHelpers.encodeJPEG(wide)
        let rendered = try ImagingHelpers.render(bytes, .attachment)
        XCTAssertEqual([rendered.width, rendered.height], [1038, 1])
        let story = try ImagingHelpers.render(bytes, .story)
        XCTAssertGreaterThan(story.width, 0)
        XCTAssertEqual(story.height, 8)
        let tall = ResizePlan.make(width: 1, height: 50000, swapsAxes: false, boxWidth: 100, boxHeight: 100, fit: .contain)
        XCTAssertEqual([tall.outputWidth, tall.outputHeight], [1, 100])
    }

    func testContainNeverUpscalesAndCoverCropsToTheBox() throws {
        let small = ResizePlan.make(width: 300, height: 200, swapsAxes: false, boxWidth: 1038, boxHeight: 1038, fit: .contain)
        XCTAssertEqual([small.outputWidth, small.outputHeight], [300, 200])
        let cover = ResizePlan.make(width: 2400, height: 1800, swapsAxes: false, boxWidth: 1080, boxHeight: 1620, fit: .cover)
        XCTAssertEqual([cover.outputWidth, cover.outputHeight], [1080, 1620])
        XCTAssertEqual(cover.cropHeight, 1800)
        XCTAssertEqual(cover.cropWidth, 1200, accuracy: 0.001)
        XCTAssertEqual(cover.cropX, 600, accuracy: 0.001)
        let image = syntheticImage(width: 2400, height: 1800)
        let bytes = try ImagingHelpers.encodeJPEG(image)
        let rendered = try ImagingHelpers.render(bytes, .story)
        XCTAssertEqual([rendered.width, rendered.height], [1080, 1620])
    }

    func testBoxPreShrinkKeepsQuality() throws {
        let image = syntheticImage(width: 800, height: 600)
        let plan = ResizePlan.make(width: 800, height: 600, swapsAxes: false, boxWidth: 100, boxHeight: 100, fit: .contain)
        let resized = try Resampler.resize(image, plan: plan, budget: ImagingHelpers.farBudget)
        XCTAssertEqual([resized.width, resized.height], [100, 75])
        // Box pre-shrink by 4 then Lanczos 2x: close to a direct 8x Lanczos, though not identical.
        XCTAssertGreaterThanOrEqual(psnr(resized, referenceResize(image, width: 100, height: 75)), 30)
    }

    func testAlphaEdgesHaveNoDarkFringes() throws {
        // A red disc on fully transparent black: straight-alpha resampling would pull edge pixels towards black.
        var image = PixelBuffer(width: 200, height: 200, channels: 4)
        for y in 0..<200 {
            for x in 0..<200 where (x - 100) * (x - 100) + (y - 100) * (y - 100) < 70 * 70 {
                let index = (y * 200 + x) * 4
                image.pixels[index] = 255; image.pixels[index + 3] = 255
            }
        }
        let png = try PNGEncoder.encode(image, iccProfile: nil, budget: ImagingHelpers.farBudget)
        let rendered = try ImagingHelpers.render(png, ImageVariant(name: "small", width: 37, height: 37))
        XCTAssertEqual(rendered.format, .png)
        let output = try ImagingHelpers.decodeRGBA(rendered.bytes)
        var edgePixels = 0
        for y in 0..<output.height {
            for x in 0..<output.width {
                let pixel = ImagingHelpers.pixel(output, x, y)
                guard pixel[3] >= 16, pixel[3] < 250 else { continue }
                edgePixels += 1
                XCTAssertGreaterThanOrEqual(pixel[0], 235, "edge pixel \(x),\(y) is \(pixel)")
                XCTAssertLessThanOrEqual(max(pixel[1], pixel[2]), 20, "edge pixel \(x),\(y) is \(pixel)")
            }
        }
        XCTAssertGreaterThan(edgePixels, 10)
    }
}
