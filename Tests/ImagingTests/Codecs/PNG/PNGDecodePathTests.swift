import Foundation
import ImagingTestSupport
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
        png(width: width, height: height, depth: 8, colourType: 2, before: [], stream: stream)
    }

    /// A PNG whose `before` chunks (type and body) stand between IHDR and its one IDAT chunk.
    private func png(width: Int, height: Int, depth: UInt8, colourType: UInt8, before: [(String, [UInt8])], stream: [UInt8]) -> Data {
        PNGFile.file(header: PNGFile.header(width: width, height: height, depth: depth, colourType: colourType),
                     chunks: before.map { (type: $0.0, body: $0.1) } + [("IDAT", stream)])
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
        withTransparency.insert(contentsOf: PNGFile.chunk("tRNS", [0, 1, 0, 2, 0, 3]), at: 33)
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

    func testPaletteFilesTakeTheFastPathAndMatchLibpng() throws {
        // 1, 2, 4 and 8 bits; odd sizes whose last byte is part-used; tRNS on some entries, on all, and on none;
        // beside gAMA, sBIT and bKGD, which change nothing here.
        let files: [(String, Int)] = [("basn3p01.png", 3), ("basn3p02.png", 3), ("basn3p04.png", 3), ("basn3p08.png", 3),
                                      ("s35n3p04.png", 3), ("s09n3p02.png", 3), ("tp1n3p08.png", 4), ("tm3n3p02.png", 4),
                                      ("tbbn3p08.png", 4)]
        for (name, channels) in files {
            let bytes = try Data(contentsOf: fixture("conformance/png/\(name)"))
            XCTAssertNotNil(PNGInflatedRows(bytes, chunks: try PNGDecoder.checkChunks(bytes), limits: ImageLimits()), name)
            XCTAssertEqual(try PNGDecoder.decode(bytes, limits: ImageLimits(), budget: budget).pixels.channels, channels, name)
            XCTAssertNil(PNGDecodePathComparison.difference(in: bytes), name)
        }
    }

    func testPaletteEdgeCasesGiveWhatLibpngGives() throws {
        // 8 × 2 pixels of 4 bits: indices 0 to 15, where the palette has 3 entries.
        let indices = try XCTUnwrap(PNGCompression.libdeflateStream(of: [0, 0x01, 0x23, 0x45, 0x67, 0, 0x89, 0xAB, 0xCD, 0xEF]))
        let palette = [255, 0, 0, 0, 255, 0, 0, 0, 255].map(UInt8.init)
        let cases: [(name: String, chunks: [(String, [UInt8])], fast: Bool)] = [
            ("indices past the palette (black, as libpng)", [("PLTE", palette)], true),
            ("a tRNS shorter than the palette", [("PLTE", palette), ("tRNS", [0, 128])], true),
            ("a PLTE longer than 2^depth (libpng drops the rest)", [("PLTE", palette + [UInt8](repeating: 7, count: 3 * 20))], true),
            ("a tRNS longer than the palette (libpng ignores it)", [("PLTE", palette), ("tRNS", [0, 1, 2, 3])], false),
            ("a tRNS before the PLTE (libpng ignores it)", [("tRNS", [0]), ("PLTE", palette)], false),
            ("two tRNS chunks", [("PLTE", palette), ("tRNS", [0]), ("tRNS", [9])], false),
            ("no PLTE (libpng refuses the file)", [], false),
            ("an empty PLTE", [("PLTE", [])], false),
            ("a PLTE of 4 bytes", [("PLTE", [1, 2, 3, 4])], false),
            ("two PLTE chunks", [("PLTE", palette), ("PLTE", palette)], false),
        ]
        for (name, chunks, fast) in cases {
            let bytes = png(width: 8, height: 2, depth: 4, colourType: 3, before: chunks, stream: indices)
            let fastPath = PNGInflatedRows(bytes, chunks: try PNGDecoder.checkChunks(bytes), limits: ImageLimits())
            XCTAssertEqual(fastPath != nil, fast, name)
            XCTAssertNil(PNGDecodePathComparison.difference(in: bytes), name)
        }
        let outOfRange = png(width: 8, height: 2, depth: 4, colourType: 3, before: [("PLTE", palette), ("tRNS", [0, 128])], stream: indices)
        let pixels = try PNGDecoder.decode(outOfRange, limits: ImageLimits(), budget: budget).pixels
        XCTAssertEqual(Array(pixels.pixels[0..<12]), [255, 0, 0, 0, 0, 255, 0, 128, 0, 0, 255, 255],
                       "red at alpha 0, green at 128, blue opaque")
        XCTAssertEqual(Array(pixels.pixels[12..<16]), [0, 0, 0, 255], "index 3 is past the palette: opaque black")
    }
}
