import Foundation
import TestSupport
import XCTest
@testable import RichPushImaging

/// The libdeflate fast path and libpng agree: the same pixels, and the same verdict on streams that are not
/// exactly the image's rows.
final class PNGDecodePathTests: XCTestCase {
    /// Computed: XCTest makes every test case instance when the run starts, minutes before some tests run.
    private var budget: WorkBudget { WorkBudget(deadline: .now + .seconds(120)) }

    /// An 8-bit RGB PNG of `width` × `height` with one IDAT chunk holding `stream`.
    private func png(width: Int, height: Int, stream: [UInt8]) -> Data {
        let header = ImagingHelpers.bigEndian32(UInt32(width)) + ImagingHelpers.bigEndian32(UInt32(height)) + [8, 2, 0, 0, 0]
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + ImagingHelpers.pngChunk("IHDR", header)
                    + ImagingHelpers.pngChunk("IDAT", stream) + ImagingHelpers.pngChunk("IEND", []))
    }

    /// `height` rows of 3 × `width` bytes, each row with filter type `filter`.
    private func rows(width: Int, height: Int, filter: UInt8 = 0) -> [UInt8] {
        (0..<height).flatMap { row in [filter] + (0..<(width * 3)).map { UInt8(truncatingIfNeeded: $0 * 7 + row * 13) } }
    }

    func testWellFormedFilesTakeTheFastPathAndMatchLibpng() throws {
        for filter in UInt8(0)...4 {
            let bytes = png(width: 17, height: 9, stream: try XCTUnwrap(PNGCompression.libdeflateStream(of: rows(width: 17, height: 9, filter: filter))))
            XCTAssertNotNil(PNGInflatedRows(bytes, chunks: try PNGDecoder.checkChunks(bytes), limits: ImageLimits()), "filter \(filter)")
            XCTAssertNil(PNGDecodePathComparison.difference(in: bytes), "filter \(filter)")
        }
    }

    func testStreamsThatAreNotExactlyTheRowsAreLeftToLibpng() throws {
        let exact = try XCTUnwrap(PNGCompression.libdeflateStream(of: rows(width: 8, height: 6)))
        let longer = try XCTUnwrap(PNGCompression.libdeflateStream(of: rows(width: 8, height: 7)))
        let shorter = try XCTUnwrap(PNGCompression.libdeflateStream(of: rows(width: 8, height: 5)))
        var badChecksum = exact
        badChecksum[badChecksum.count - 1] ^= 0xFF
        var badFilter = rows(width: 8, height: 6)
        badFilter[0] = 9
        let cases: [(String, [UInt8])] = [
            ("more data than the rows", longer), ("less data than the rows", shorter), ("a bad Adler-32", badChecksum),
            ("a cut stream", Array(exact.dropLast(7))), ("a bad filter type", try XCTUnwrap(PNGCompression.libdeflateStream(of: badFilter))),
        ]
        for (name, stream) in cases {
            let bytes = png(width: 8, height: 6, stream: stream)
            XCTAssertNil(PNGDecodePathComparison.difference(in: bytes), name)
        }
        // Trailing data past the rows is never inflated by the fast path: libpng decides, and stops after the rows.
        let trailing = png(width: 8, height: 6, stream: longer)
        XCTAssertNil(PNGInflatedRows(trailing, chunks: try PNGDecoder.checkChunks(trailing), limits: ImageLimits()))
        XCTAssertThrowsError(try PNGDecoder.decode(png(width: 8, height: 6, stream: shorter), limits: ImageLimits(), budget: budget))
    }

    func testOddChunksAndLayoutsGoToLibpng() throws {
        var withTransparency = png(width: 4, height: 4, stream: try XCTUnwrap(PNGCompression.libdeflateStream(of: rows(width: 4, height: 4))))
        // A tRNS chunk (here before the image data, after the 33 bytes of signature and IHDR) changes the pixels:
        // libpng adds alpha, so such a file is libpng's.
        withTransparency.insert(contentsOf: ImagingHelpers.pngChunk("tRNS", [0, 1, 0, 2, 0, 3]), at: 33)
        XCTAssertNil(PNGInflatedRows(withTransparency, chunks: try PNGDecoder.checkChunks(withTransparency), limits: ImageLimits()))
        XCTAssertNil(PNGDecodePathComparison.difference(in: withTransparency))
        XCTAssertEqual(try PNGDecoder.decode(withTransparency, limits: ImageLimits(), budget: budget).pixels.channels, 4)
    }

    func testRepairedCRCsLetAMutatedFileReachTheDecoders() throws {
        var bytes = png(width: 4, height: 4, stream: try XCTUnwrap(PNGCompression.libdeflateStream(of: rows(width: 4, height: 4))))
        bytes[bytes.startIndex + 20] ^= 0x01   // the IHDR's height, so its CRC no longer matches
        XCTAssertThrowsError(try PNGDecoder.checkChunks(bytes))
        let repaired = PNGDecodePathComparison.repairingChunkCRCs(bytes)
        XCTAssertNoThrow(try PNGDecoder.checkChunks(repaired))
        XCTAssertEqual(repaired.count, bytes.count)
    }

    func testGreyAndGreyAlphaTakeTheFastPathAndComeOutAsRGBAndRGBA() throws {
        for (name, channels) in [("basn0g08.png", 3), ("basn4a08.png", 4), ("f04n0g08.png", 3)] {
            let bytes = try Data(contentsOf: fixture("conformance/png/\(name)"))
            XCTAssertNotNil(PNGInflatedRows(bytes, chunks: try PNGDecoder.checkChunks(bytes), limits: ImageLimits()), name)
            XCTAssertEqual(try PNGDecoder.decode(bytes, limits: ImageLimits(), budget: budget).pixels.channels, channels, name)
            XCTAssertNil(PNGDecodePathComparison.difference(in: bytes), name)
        }
    }
}
