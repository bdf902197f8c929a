import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushImaging
import TestSupport

/// Our full-scale decodes against answers made by independent decoders (see Fixtures/conformance/README.md).
final class ConformanceTests: XCTestCase {
    func testMD5Implementation() {
        XCTAssertEqual(ImagingHelpers.md5([]), "d41d8cd98f00b204e9800998ecf8427e")
        XCTAssertEqual(ImagingHelpers.md5(Array("The quick brown fox jumps over the lazy dog".utf8)), "9e107d9d372bb6826bd81d3542a419d6")
    }

    func testPNGSuiteDecodesToExpectedRGBA() throws {
        let expected = try ImagingHelpers.checksums("conformance/png/expected-rgba8.md5")
        XCTAssertGreaterThan(expected.count, 100)
        var mismatches: [String] = []
        var fastPathFiles = 0
        for (name, md5) in expected {
            let bytes = try ImagingHelpers.data("conformance/png/\(name)")
            do {
                // The answers for 16-bit colour files keep the high byte; our rendering path rounds, which must
                // stay within 1 of it.
                let truncated = try PNGDecoder.decode(bytes, limits: ImageLimits(), truncatingSixteenBit: true,
                                                      budget: ImagingHelpers.farBudget).pixels.addingAlpha()
                if ImagingHelpers.md5(truncated.pixels) != md5 { mismatches.append(name) }
                // Every answer holds through libpng alone too, whichever path the file takes by default.
                let libpng = try PNGDecoder.decode(bytes, limits: ImageLimits(), truncatingSixteenBit: true, allowsFastPath: false,
                                                   budget: ImagingHelpers.farBudget).pixels.addingAlpha()
                if ImagingHelpers.md5(libpng.pixels) != md5 { mismatches.append("\(name) through libpng") }
                if PNGInflatedRows(bytes, chunks: try PNGDecoder.checkChunks(bytes), limits: ImageLimits()) != nil { fastPathFiles += 1 }
                let rounded = try PNGDecoder.decode(bytes, limits: ImageLimits(), budget: ImagingHelpers.farBudget).pixels.addingAlpha()
                let worst = zip(rounded.pixels, truncated.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
                if worst > 1 { mismatches.append("\(name): rounding differs by \(worst)") }
                if !name.contains("16"), rounded.pixels != truncated.pixels { mismatches.append("\(name): 8-bit paths differ") }
            } catch {
                mismatches.append("\(name): \(error)")
            }
        }
        XCTAssertEqual(mismatches, [])
        XCTAssertGreaterThanOrEqual(fastPathFiles, 20, "the fast path is exercised (8-bit RGB and RGBA, every filter)")
    }

    func testPNGSuiteCorruptFilesAreRejected() throws {
        let directory = fixture("conformance/png")
        let corrupt = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasPrefix("x") && $0.hasSuffix(".png") }.sorted()
        XCTAssertEqual(corrupt.count, 14)
        for name in corrupt {
            let bytes = try ImagingHelpers.data("conformance/png/\(name)")
            XCTAssertThrowsError(try ImagingHelpers.render(bytes, .attachment), name) { error in
                XCTAssertNotNil(error as? ImageError, name)
            }
            XCTAssertThrowsError(try PNGDecoder.decode(bytes, limits: ImageLimits(), budget: ImagingHelpers.farBudget), name)
            XCTAssertThrowsError(try PNGDecoder.decode(bytes, limits: ImageLimits(), allowsFastPath: false,
                                                       budget: ImagingHelpers.farBudget), name)
        }
    }

    func testSixteenBitPNGScalesToEightBitsWithRounding() throws {
        // A 16-bit grey PNG of known samples: v -> round(v * 255 / 65535), where truncation (v >> 8) differs.
        let samples: [UInt16] = [0, 0x00FF, 0x0180, 0x7FFF, 0x80FF, 0xFF7F, 0xFFFF]
        var raw: [UInt8] = [0]
        for sample in samples { raw += [UInt8(sample >> 8), UInt8(sample & 0xFF)] }
        let png = PNGFile.file(header: PNGFile.header(width: samples.count, height: 1, depth: 16, colourType: 0),
                               chunks: [("IDAT", ImagingHelpers.storedZlib(raw))])
        let decoded = try PNGDecoder.decode(png, limits: ImageLimits(), budget: ImagingHelpers.farBudget).pixels
        let expected = samples.map { Int((Double($0) * 255 / 65535).rounded()) }
        XCTAssertEqual((0..<samples.count).map { ImagingHelpers.pixel(decoded, $0, 0)[0] }, expected)
        let monkey = try PNGDecoder.decode(try ImagingHelpers.data("conformance/jpeg/monkey16.png"), limits: ImageLimits(),
                                           budget: ImagingHelpers.farBudget)
        XCTAssertGreaterThan(monkey.pixels.width, 0)
    }

    func testWebPVectorsMatchDwebp() throws {
        let expected = try ImagingHelpers.checksums("conformance/webp/libwebp_tests.md5")
        var checked = 0
        var mismatches: [String] = []
        for (name, md5) in expected {
            let isPAM = name.hasSuffix(".pam")
            let file = String(name.dropLast(4))
            let url = fixture("conformance/webp/\(file)")
            guard FileManager.default.fileExists(atPath: url.path) else { continue }
            let bytes = try Data(contentsOf: url)
            do {
                let decoded = try WebPDecoder.decode(bytes, layout: isPAM ? .rgba : .rgb, budget: ImagingHelpers.farBudget)
                let image = decoded.pixels
                let header = isPAM
                    ? "P7\nWIDTH \(image.width)\nHEIGHT \(image.height)\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n"
                    : "P6\n\(image.width) \(image.height)\n255\n"
                if ImagingHelpers.md5(Array(header.utf8) + image.pixels) != md5 { mismatches.append(name) }
            } catch {
                mismatches.append("\(name): \(error)")
            }
            checked += 1
        }
        XCTAssertGreaterThan(checked, 100)
        XCTAssertEqual(mismatches, [])
    }

    func testJPEGMatchesDjpeg() throws {
        let expected = try ImagingHelpers.checksums("conformance/jpeg/expected-djpeg-ppm.md5")
        XCTAssertEqual(expected.count, 3)
        for (name, md5) in expected {
            let bytes = try ImagingHelpers.data("conformance/jpeg/\(name)")
            let image = try JPEGDecoder.decode(bytes, budget: ImagingHelpers.farBudget).pixels
            let ppm = Array("P6\n\(image.width) \(image.height)\n255\n".utf8) + image.pixels
            XCTAssertEqual(ImagingHelpers.md5(ppm), md5, name)
        }
    }

    /// A valid file we do not render: the origin's answer (unsupported_format, remembered), never a fault of ours.
    func testTwelveBitJPEGIsRejectedAsAnUnsupportedFormat() throws {
        let bytes = try ImagingHelpers.data("conformance/jpeg/monkey12.jpg")
        for attempt in [{ _ = try ImageProbe.probe(bytes) }, { _ = try JPEGDecoder.decode(bytes, budget: ImagingHelpers.farBudget) }] {
            XCTAssertThrowsError(try attempt()) { error in
                guard let error = error as? ImageError, case .unsupportedFormat = error else { return XCTFail("\(error)") }
                XCTAssertFalse(error.isLocalFault)
                XCTAssertTrue(error.isPermanent)
            }
        }
    }
}
