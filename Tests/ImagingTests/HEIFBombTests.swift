import Foundation
import XCTest
@testable import RichPush

/// HEIF decompression bombs (Fixtures/imaging/make_heif_fixtures.py): refused from the meta box, before libheif
/// decodes anything, in well under a millisecond of decode work and without allocating their pixels.
final class HEIFBombTests: XCTestCase {
    private func assertRejectedCheaply(_ name: String, code: String, mentioning text: String? = nil,
                                       file: StaticString = #filePath, line: UInt = #line) throws {
        let bytes = try TestSupport.data("imaging/\(name)")
        let before = TestSupport.peakResidentKilobytes()
        let start = ContinuousClock.now
        XCTAssertThrowsError(try TestSupport.render(bytes, .attachment), name, file: file, line: line) { error in
            XCTAssertEqual((error as? ImageError)?.code, code, "\(name): \(error)", file: file, line: line)
            if let text { XCTAssertTrue("\(error)".contains(text), "\(name): \(error)", file: file, line: line) }
        }
        XCTAssertLessThan(ContinuousClock.now - start, .milliseconds(50), name, file: file, line: line)
        XCTAssertLessThan((TestSupport.peakResidentKilobytes() - before) / 1024, 20, name, file: file, line: line)
    }

    func testISPEClaiming100000SquareIsRefusedFromTheHeader() throws {
        try assertRejectedCheaply("huge_ispe.heic", code: "side_too_long")
        // Without the probe, libheif's own size limit (set to ours) refuses the file while parsing it.
        XCTAssertThrowsError(try HEIFDecoder.decode(try TestSupport.data("imaging/huge_ispe.heic"), format: .heic,
                                                    limits: ImageLimits(), budget: TestSupport.farBudget)) { error in
            XCTAssertEqual((error as? ImageError)?.code, "corrupt_image")
            XCTAssertTrue("\(error)".contains("Security limit exceeded"), "\(error)")
        }
    }

    func testISPEOf16000SquareIsOverThePixelLimit() throws {
        try assertRejectedCheaply("many_pixels_ispe.heic", code: "too_many_pixels")
        // libheif's limit is per side only; the decoder checks the pixel count itself before decoding.
        XCTAssertThrowsError(try HEIFDecoder.decode(try TestSupport.data("imaging/many_pixels_ispe.heic"), format: .heic,
                                                    limits: ImageLimits(), budget: TestSupport.farBudget)) { error in
            XCTAssertEqual((error as? ImageError)?.code, "too_many_pixels")
        }
    }

    func testGridOf4096TilesIsRefusedFromTheHeader() throws {
        // A legal 4096x4096 (16.8 MP) grid, but 4096 decoder runs.
        XCTAssertLessThanOrEqual(4096 * 4096, ImageLimits().maximumPixels)
        try assertRejectedCheaply("many_tiles.heic", code: "corrupt_image", mentioning: "4096 tiles")
    }

    func testGridWhoseTilesHoldFarMoreThanItsImageIsRefused() throws {
        // 16 tiles of 64x64 under an ispe of 64x64: libheif would decode all 16 to show one.
        try assertRejectedCheaply("overlapping_tiles.heic", code: "corrupt_image", mentioning: "more than its 64x64 image needs")
    }

    func testLibheifAloneRefusesTheManyTilesGrid() throws {
        // The probe's tile cap comes first; libheif 1.15 has a cap of its own on derived-image decodes.
        XCTAssertThrowsError(try HEIFDecoder.decode(try TestSupport.data("imaging/many_tiles.heic"), format: .heic,
                                                    limits: ImageLimits(), budget: TestSupport.farBudget)) { error in
            XCTAssertEqual((error as? ImageError)?.code, "corrupt_image", "\(error)")
        }
    }
}
