import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushImaging

/// HEIF decompression bombs (Fixtures/imaging/make_heif_fixtures.py): refused from the meta box, before libheif
/// decodes anything, in well under a millisecond of decode work and without allocating their pixels.
final class HEIFBombTests: XCTestCase {
    private func assertRejectedCheaply(_ name: String, code: String, mentioning text: String? = nil,
                                       file: StaticString = #filePath, line: UInt = #line) throws {
        let bytes = try ImagingHelpers.data("imaging/\(name)")
        let before = ImagingHelpers.startMemoryMeasurement()
        let start = ContinuousClock.now
        XCTAssertThrowsError(try ImagingHelpers.render(bytes, .attachment), name, file: file, line: line) { error in
            XCTAssertEqual((error as? ImageError)?.code.rawValue, code, "\(name): \(error)", file: file, line: line)
            if let text { XCTAssertTrue("\(error)".contains(text), "\(name): \(error)", file: file, line: line) }
        }
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(1), name, file: file, line: line)
        XCTAssertLessThan((ImagingHelpers.peakResidentKilobytes() - before) / 1024, 20, name, file: file, line: line)
    }

    func testISPEClaiming100000SquareIsRefusedFromTheHeader() throws {
        try assertRejectedCheaply("huge_ispe.heic", code: "side_too_long")
    }

    func testISPEOf16000SquareIsOverThePixelLimit() throws {
        try assertRejectedCheaply("many_pixels_ispe.heic", code: "too_many_pixels")
    }

    func testGridOf4096TilesIsRefusedFromTheHeader() throws {
        // A legal 4096x4096 (16.8 MP) grid, but 4096 decoder runs.
        XCTAssertLessThanOrEqual(4096 * 4096, ImageLimits().maximumPixels)
        try assertRejectedCheaply("many_tiles.heic", code: "corrupt_image", mentioning: "4096 tiles")
    }

    /// 808 bytes whose ispe says 64x64 and whose grid descriptor asks libheif for a 16000x16000 canvas: libheif
    /// 1.15 allocates it (heif-convert takes 1.1 GB); the ispe alone does not show it.
    func testGridDescriptorAskingForAHugeCanvasIsRefusedFromTheHeader() throws {
        try assertRejectedCheaply("grid_canvas_bomb.heic", code: "too_many_pixels")
    }

    func testGridWhoseTilesHoldFarMoreThanItsCanvasIsRefused() throws {
        // Four tiles claiming 6000x6000 each (36 MP, each within the limits) for a 64x64 canvas.
        try assertRejectedCheaply("oversized_tiles.heic", code: "corrupt_image", mentioning: "more than its 64x64 canvas needs")
    }

    /// libheif's handle shows only the ispe, so the decoder walks the header itself before calling libheif: every
    /// bomb is refused as cheaply through the decoder alone.
    func testTheDecoderAloneRefusesEveryBombFromTheHeader() throws {
        let expected = ["huge_ispe.heic": "side_too_long", "many_pixels_ispe.heic": "too_many_pixels",
                        "grid_canvas_bomb.heic": "too_many_pixels", "many_tiles.heic": "corrupt_image",
                        "oversized_tiles.heic": "corrupt_image"]
        for (name, code) in expected {
            let start = ContinuousClock.now
            XCTAssertThrowsError(try HEIFDecoder.decode(try ImagingHelpers.data("imaging/\(name)"), format: .heic,
                                                        limits: ImageLimits(), budget: ImagingHelpers.farBudget)) { error in
                XCTAssertEqual((error as? ImageError)?.code.rawValue, code, "\(name): \(error)")
            }
            XCTAssertLessThan(ContinuousClock.now - start, .seconds(1), name)
        }
    }
}
