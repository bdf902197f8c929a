import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushImaging
import ImagingTestSupport
import TestSupport

/// Inputs the fuzzers found (Fixtures/fuzz/<target>/), each rejected cleanly and cheaply.
final class FuzzRegressionTests: XCTestCase {
    func testPNGWhoseTextChunkClaimsAGigabyteIsRejectedBeforeLibpngAllocates() throws {
        let bytes = try ImagingHelpers.data("fuzz/png/oom-text-chunk-length.png")
        XCTAssertEqual(bytes.count, 228)
        let before = ImagingHelpers.startMemoryMeasurement()
        XCTAssertThrowsError(try PNGDecoder.decode(bytes, limits: ImageLimits(), budget: ImagingHelpers.farBudget)) { error in
            XCTAssertEqual((error as? ImageError)?.code, "corrupt_image")
            XCTAssertTrue("\(error)".contains("tEXt"), "\(error)")
        }
        XCTAssertLessThan((ImagingHelpers.peakResidentKilobytes() - before) / 1024, 50)
    }

    func testEveryPNGSuiteFileStillPassesTheChunkWalk() throws {
        let directory = fixture("conformance/png")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasSuffix(".png") && !$0.hasPrefix("x")
        }
        XCTAssertGreaterThan(names.count, 140)
        for name in names {
            let bytes = try Data(contentsOf: directory.appendingPathComponent(name))
            XCTAssertNoThrow(try PNGDecoder.checkChunks(bytes), name)
        }
    }

    /// Every input `richpush-fuzz png-paths` found where the fast path and libpng disagreed (a second IHDR: libpng
    /// rejects it as out of place) now gets the same verdict from both.
    func testPNGDecodePathsAgreeOnEveryFoundInput() throws {
        let directory = fixture("fuzz/png-paths")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        XCTAssertFalse(names.isEmpty)
        for name in names {
            let bytes = try Data(contentsOf: directory.appendingPathComponent(name))
            XCTAssertNil(PNGDecodePathComparison.difference(in: bytes), name)
        }
    }
}
