import Foundation
import XCTest
import RichPushCore
@testable import RichPushImaging
import TestSupport

/// Issue 36 item 1: the work of a decode is counted from the headers, every scan of a JPEG included, and a source
/// over the limit is refused before anything is decoded.
final class DecodeWorkTests: XCTestCase {
    func testScansAreCountedAndTheirWorkSummedBeforeAnyDecode() throws {
        let probe = try ImageProbe.probe(JPEGScanFlood.jpeg(width: 1000, height: 800, scans: 7))
        XCTAssertEqual(probe.scanCount, 7)
        // 125x100 blocks of 64 samples, once per scan.
        XCTAssertEqual(probe.decodeWork, 7 * 125 * 100 * 64)
        XCTAssertTrue(probe.isMultiScan)
    }

    /// The review's file: 40 MP of flat grey in 491 scans, under the scan cap, refused by its work.
    func testAFortyMegapixelJPEGOf491ScansIsRefusedFromItsHeaders() throws {
        let bytes = JPEGScanFlood.jpeg(width: 7300, height: 5475, scans: 491)
        XCTAssertLessThan(bytes.count, 10_000)
        XCTAssertThrowsError(try ImageProbe.probe(bytes)) { error in
            guard let error = error as? ImageError, case .decodeWorkTooLarge(let work, let scans, let limit) = error else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(scans, 491)
            XCTAssertEqual(work, 491 * 913 * 685 * 64)
            XCTAssertEqual(limit, ImageLimits.defaultMaximumDecodeWork)
            XCTAssertEqual(error.code, "decode_work_too_large")
            XCTAssertTrue(error.isPermanent)
            XCTAssertFalse(error.isLocalFault)
            XCTAssertTrue(error.description.contains("491 scans"), error.description)
        }
        var generous = ImageLimits()
        generous.maximumDecodeWork = .max
        XCTAssertEqual(try ImageProbe.probe(bytes, limits: generous).scanCount, 491, "the limit is a setting")
    }

    /// The 883-scan file: refused by the probe, which the render runs before anything is decoded.
    func testMoreScansThanTheCapAreRefusedByTheProbe() throws {
        XCTAssertThrowsError(try ImageProbe.probe(JPEGScanFlood.jpeg(width: 64, height: 64, scans: 883))) { error in
            guard case .corrupt(let reason)? = error as? ImageError else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("more than \(ImageLimits.maximumJPEGScans) scans"), reason)
        }
        XCTAssertNoThrow(try ImageProbe.probe(JPEGScanFlood.jpeg(width: 64, height: 64, scans: ImageLimits.maximumJPEGScans)))
    }

    /// Real files: the probe counts the scans libjpeg wrote (`JPEGScanScript.scanSizes` reads them another way),
    /// and sums each scan's components.
    func testARealProgressiveFileIsCountedScanByScan() throws {
        let image = ImagingHelpers.gradient(checker: 16)
        let progressive = try JPEGEncoder.encode(image, quality: 85, progressive: true, iccProfile: nil, budget: ImagingHelpers.farBudget)
        let probe = try ImageProbe.probe(progressive)
        XCTAssertEqual(probe.scanCount, try XCTUnwrap(JPEGScanScript.scanSizes(of: [UInt8](progressive))).count)
        XCTAssertGreaterThan(probe.scanCount, 3)
        let samples = JPEGHeader.blockCounts(width: image.width, height: image.height, sampling: probe.componentSampling)
            .map { $0 * 64 }
        // Every scan covers one component, or all of them: the total lies between the extremes.
        XCTAssertGreaterThanOrEqual(probe.decodeWork, probe.scanCount * samples.min()!)
        XCTAssertLessThanOrEqual(probe.decodeWork, probe.scanCount * samples.reduce(0, +))

        let baseline = try JPEGEncoder.encode(image, quality: 85, progressive: false, iccProfile: nil, budget: ImagingHelpers.farBudget)
        let single = try ImageProbe.probe(baseline)
        XCTAssertEqual(single.scanCount, 1)
        XCTAssertEqual(single.decodeWork, samples.reduce(0, +))
    }

    /// No valid file of the fixtures or the conformance suites comes near the limit (the margin is in
    /// docs/benchmarks.md): the largest work among them stays under a tenth of it.
    func testEveryValidFixtureIsFarUnderTheLimit() throws {
        var largest = (name: "", work: 0)
        var probed = 0
        for folder in ["Fixtures/media", "Fixtures/imaging", "Fixtures/conformance/jpeg", "Fixtures/conformance/png",
                       "Fixtures/conformance/webp"] {
            let directory = fixture(String(folder.dropFirst("Fixtures/".count)))
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() {
                let bytes = try Data(contentsOf: directory.appendingPathComponent(name))
                var unlimited = ImageLimits()
                unlimited.maximumDecodeWork = .max
                guard let probe = try? ImageProbe.probe(bytes, limits: unlimited) else { continue }
                probed += 1
                XCTAssertNoThrow(try ImageProbe.probe(bytes), name)
                if probe.decodeWork > largest.work { largest = (name, probe.decodeWork) }
            }
        }
        XCTAssertGreaterThan(probed, 100)
        XCTAssertLessThan(largest.work, ImageLimits.defaultMaximumDecodeWork / 10, "\(largest)")
    }
}
