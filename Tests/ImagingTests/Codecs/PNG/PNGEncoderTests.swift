import CDeflate
import Foundation
import XCTest
@testable import RichPushImaging

/// The PNG encoder: filters, the choice of stream, and whole files that libpng reads back exactly.
final class PNGEncoderTests: XCTestCase {
    /// Computed: XCTest makes every test case instance when the run starts, minutes before some tests run.
    private var budget: WorkBudget { WorkBudget(deadline: .now + .seconds(120)) }

    /// A photograph-like image: smooth gradients plus noise, with a transparent band when it has alpha.
    private func image(width: Int, height: Int, channels: Int, seed: UInt64) -> PixelBuffer {
        var random = seed
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                for channel in 0..<channels {
                    random = random &* 6364136223846793005 &+ 1442695040888963407
                    let noise = Int(random >> 60)
                    let value = channel == 3 ? (y < height / 4 ? 0 : 128 + x % 128) : (x * 3 + y * (channel + 1) + noise) % 256
                    pixels[(y * width + x) * channels + channel] = UInt8(value)
                }
            }
        }
        return PixelBuffer(width: width, height: height, channels: channels, pixels: pixels)
    }

    func testEncodedFilesDecodeToTheSamePixelsThroughLibpng() throws {
        for (width, height, channels) in [(1, 1, 3), (1, 7, 4), (37, 19, 3), (64, 65, 4), (257, 3, 4)] {
            let source = image(width: width, height: height, channels: channels, seed: UInt64(width * height))
            let encoded = try PNGEncoder.encode(source, iccProfile: nil, budget: budget)
            let decoded = try PNGDecoder.decode(encoded, limits: ImageLimits(), budget: budget)
            XCTAssertEqual(decoded.pixels.width, width)
            XCTAssertEqual(decoded.pixels.height, height)
            XCTAssertEqual(decoded.pixels.channels, channels)
            XCTAssertEqual(decoded.pixels.pixels, source.pixels, "\(width)x\(height)x\(channels)")
            XCTAssertNil(decoded.iccProfile)
        }
    }

    func testTheICCProfileIsCarried() throws {
        let jpeg = try ImagingHelpers.data("imaging/icc_srgb.jpg")
        let profile = try XCTUnwrap(JPEGDecoder.decode(jpeg, budget: budget).iccProfile)
        let encoded = try PNGEncoder.encode(image(width: 9, height: 9, channels: 3, seed: 1), iccProfile: profile, budget: budget)
        let decoded = try PNGDecoder.decode(encoded, limits: ImageLimits(), budget: budget)
        XCTAssertEqual(decoded.iccProfile, profile)
    }

    func testEveryFilterInvertsExactly() {
        let width = 23, bytesPerPixel = 4, rowBytes = width * bytesPerPixel
        let previous = (0..<rowBytes).map { UInt8(($0 * 37 + 11) % 256) }
        let row = (0..<rowBytes).map { UInt8(($0 * 91 + 200) % 256) }
        for filter in PNGRowFilter.allCases {
            var scratch = [UInt8](repeating: 0, count: rowBytes)
            row.withUnsafeBufferPointer { row in
                previous.withUnsafeBufferPointer { previous in
                    scratch.withUnsafeMutableBufferPointer { output in
                        _ = filter.apply(row, previous: previous, bytesPerPixel: bytesPerPixel, into: output)
                    }
                }
            }
            XCTAssertEqual(ImagingHelpers.referenceUnfilter(scratch, type: filter.rawValue, previous: previous, bytesPerPixel: bytesPerPixel), row,
                           "filter \(filter)")
        }
    }

    func testTheSmallerStreamIsChosenForNoiseAndForFlatGraphics() throws {
        // Filtered photograph rows are small signed differences: a two-sided geometric spread around 0.
        var random: UInt64 = 1
        let noise = (0..<200_000).map { _ -> UInt8 in
            random = random &* 6364136223846793005 &+ 1442695040888963407
            let magnitude = min(8, (random >> 40).trailingZeroBitCount)
            return random >> 63 == 1 ? UInt8(magnitude) : UInt8(truncatingIfNeeded: -magnitude)
        }
        let graphic = (0..<200_000).map { UInt8(($0 / 4000) % 3) }   // long runs and repeats
        for bytes in [noise, graphic] {
            let chosen = try PNGCompression.smallestStream(of: bytes)
            let matched = try XCTUnwrap(PNGCompression.libdeflateStream(of: bytes))
            let literal = try XCTUnwrap(PNGCompression.huffmanOnlyStream(of: bytes))
            XCTAssertEqual(chosen.count, min(matched.count, literal.count))
            XCTAssertEqual(try Self.inflate(chosen, count: bytes.count), bytes)
        }
        XCTAssertLessThan(try PNGCompression.smallestStream(of: graphic).count,
                          try XCTUnwrap(PNGCompression.huffmanOnlyStream(of: graphic)).count / 10, "graphics get LZ matches")
        XCTAssertLessThan(try XCTUnwrap(PNGCompression.huffmanOnlyStream(of: noise)).count,
                          try XCTUnwrap(PNGCompression.libdeflateStream(of: noise)).count, "noise gets Huffman-only")
    }

    private static func inflate(_ stream: [UInt8], count: Int) throws -> [UInt8] {
        let decompressor = try XCTUnwrap(libdeflate_alloc_decompressor())
        defer { libdeflate_free_decompressor(decompressor) }
        var output = [UInt8](repeating: 0, count: count)
        var written = 0
        let result = stream.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { output in
                libdeflate_zlib_decompress(decompressor, input.baseAddress, input.count, output.baseAddress, output.count, &written)
            }
        }
        XCTAssertEqual(result, LIBDEFLATE_SUCCESS)
        return Array(output[..<written])
    }
}
