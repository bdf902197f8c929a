import Foundation
import TestSupport
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushImaging

/// Decompression bombs: rejected from headers (or by libpng's own limits) without allocating their pixels, or
/// decoded without inflating more than the image needs.
final class BombTests: XCTestCase {
    private func assertRejectedCheaply(_ bytes: Data, code: String, file: StaticString = #filePath, line: UInt = #line) {
        let before = ImagingHelpers.startMemoryMeasurement()
        XCTAssertThrowsError(try ImagingHelpers.render(bytes, .attachment), file: file, line: line) { error in
            XCTAssertEqual((error as? ImageError)?.code.rawValue, code, "\(error)", file: file, line: line)
        }
        let grownMegabytes = (ImagingHelpers.peakResidentKilobytes() - before) / 1024
        XCTAssertLessThan(grownMegabytes, 100, file: file, line: line)
    }

    func testPNGHeaderClaiming200000Square() {
        let png = PNGFile.file(header: PNGFile.header(width: 200_000, height: 200_000, colourType: 2),
                               chunks: [("IDAT", ImagingHelpers.storedZlib([0, 0, 0, 0]))])
        assertRejectedCheaply(png, code: "side_too_long")
    }

    func testJPEGFrameClaiming65500Square() {
        let frame: [UInt8] = [0xFF, 0xC0, 0, 17, 8, 0xFF, 0xDC, 0xFF, 0xDC, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
        assertRejectedCheaply(Data([0xFF, 0xD8] + frame + [0xFF, 0xD9]), code: "side_too_long")
        // Within the side limit but far over the pixel limit.
        let wide: [UInt8] = [0xFF, 0xC0, 0, 17, 8, 0x3F, 0xFF, 0x3F, 0xFF, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
        assertRejectedCheaply(Data([0xFF, 0xD8] + wide + [0xFF, 0xD9]), code: "too_many_pixels")
    }

    func testOneBitPNGOf30000Square() throws {
        let bytes = try ImagingHelpers.data("imaging/bomb_30000_1bit.png")
        XCTAssertLessThan(bytes.count, 500_000)
        assertRejectedCheaply(bytes, code: "side_too_long")
        // Without the probe, libpng's own user limits stop it at IHDR.
        let before = ImagingHelpers.startMemoryMeasurement()
        XCTAssertThrowsError(try PNGDecoder.decode(bytes, limits: ImageLimits(), budget: ImagingHelpers.farBudget)) { error in
            XCTAssertEqual((error as? ImageError)?.code, "corrupt_image")
        }
        XCTAssertLessThan((ImagingHelpers.peakResidentKilobytes() - before) / 1024, 100)
    }

    func testWebPOf16383Square() {
        // A lossless (VP8L) header: 14-bit width-1 and height-1.
        let bits: UInt32 = 16382 | 16382 << 14
        let vp8l: [UInt8] = [0x2F, UInt8(bits & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 24)]
            + [UInt8](repeating: 0, count: 27)
        let chunk = Array("VP8L".utf8) + [UInt8(vp8l.count), 0, 0, 0] + vp8l
        let riff = Array("RIFF".utf8) + [UInt8(chunk.count + 4), 0, 0, 0] + Array("WEBP".utf8) + chunk
        XCTAssertEqual(try? ImageProbe.probe(Data(riff), limits: ImageLimits(maximumPixels: .max)).width, 16383)
        assertRejectedCheaply(Data(riff), code: "too_many_pixels")
    }

    func testPNGWhoseStreamInflatesToGigabytesAfterTheLastRowDecodesWithoutInflatingThem() throws {
        // 4 GB of zeros after the rows: inflating them takes libpng tens of seconds of CPU.
        let bomb = PNGBomb.trailingZeros(width: 1000, height: 1000, trailingZeroBytes: 4 << 30)
        XCTAssertLessThan(bomb.count, 10 << 20)
        let started = ImagingHelpers.threadCPUTime()
        let decoded = try PNGDecoder.decode(bomb, limits: ImageLimits(), budget: ImagingHelpers.farBudget)
        let cpu = ImagingHelpers.threadCPUTime() - started
        XCTAssertEqual(ImagingHelpers.pixel(decoded.pixels, 999, 998), [231, 230, 128])
        // The 3 MB of rows decode in milliseconds; the limit only separates "stopped after the rows" from
        // "inflated the trailing gigabytes".
        XCTAssertLessThan(cpu, .seconds(2), "the decoder inflated the data after the last row")

        // Interlaced: the last row is the last row of the seventh pass.
        let interlaced = PNGBomb.trailingZeros(width: 1000, height: 1000, trailingZeroBytes: 4 << 30, interlaced: true)
        let interlacedStart = ImagingHelpers.threadCPUTime()
        let black = try PNGDecoder.decode(interlaced, limits: ImageLimits(), budget: ImagingHelpers.farBudget)
        XCTAssertEqual(ImagingHelpers.pixel(black.pixels, 999, 999), [0, 0, 0])
        XCTAssertLessThan(ImagingHelpers.threadCPUTime() - interlacedStart, .seconds(2), "the interlaced decoder inflated the data after the last row")
    }
}
