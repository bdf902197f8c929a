import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushImaging

/// JPEGs whose scan data is truncated or short of what the frame header declares fail with `corrupt_image`
/// instead of rendering libjpeg's grey fill; warnings that leave the pixels whole are kept as render warnings.
final class CorruptJPEGTests: XCTestCase {
    /// An 800x600 photo-like JPEG (a gradient with texture, so the scan data is spread over the whole file).
    private func photo(progressive: Bool) throws -> Data {
        var image = PixelBuffer(width: 800, height: 600, channels: 3)
        for y in 0..<600 {
            for x in 0..<800 {
                let start = (y * 800 + x) * 3
                image.pixels[start] = UInt8(truncatingIfNeeded: x / 4 + (x * y) % 29)
                image.pixels[start + 1] = UInt8(truncatingIfNeeded: y / 3 + (x ^ y) % 31)
                image.pixels[start + 2] = UInt8(truncatingIfNeeded: (x + y) / 6)
            }
        }
        return try JPEGEncoder.encode(image, quality: 90, progressive: progressive, iccProfile: nil, budget: ImagingHelpers.farBudget)
    }

    private func assertCorrupt(_ bytes: Data, mentioning text: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try ImagingHelpers.render(bytes, .attachment), file: file, line: line) { error in
            XCTAssertEqual((error as? ImageError)?.code, "corrupt_image", "\(error)", file: file, line: line)
            XCTAssertTrue("\(error)".contains(text), "\(error)", file: file, line: line)
        }
    }

    /// The offset of the first marker `code` (0xFF, code) after SOI.
    private func offset(ofMarker code: UInt8, in bytes: Data) throws -> Int {
        try XCTUnwrap((2..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == code })
    }

    func testJPEGTruncatedToAThirdIsCorrupt() throws {
        for progressive in [false, true] {
            let whole = try photo(progressive: progressive)
            XCTAssertNoThrow(try ImagingHelpers.render(whole, .attachment))
            assertCorrupt(whole.prefix(whole.count / 3), mentioning: "Premature end of JPEG file")
        }
    }

    func testFrameHeaderClaimingMoreThanItsScanDataHoldsIsCorrupt() throws {
        // SOF says 6000x6000 (36 MP, within the limits); the scan data covers 800x600.
        for progressive in [false, true] {
            var bytes = try photo(progressive: progressive)
            let frame = try offset(ofMarker: progressive ? 0xC2 : 0xC0, in: bytes)
            bytes.replaceSubrange((frame + 5)..<(frame + 9), with: [0x17, 0x70, 0x17, 0x70])
            XCTAssertEqual(try ImageProbe.probe(bytes).width, 6000)
            assertCorrupt(bytes, mentioning: "premature end of data segment")
        }
    }

    func testBytesBetweenSegmentsAreRenderedWithAWarning() throws {
        // Padding before a marker is common in real files and loses no pixel: libjpeg skips it with a warning.
        var bytes = try photo(progressive: false)
        bytes.insert(contentsOf: [0x00, 0x11, 0x22, 0x33], at: try offset(ofMarker: 0xDA, in: bytes))
        let rendered = try ImagingHelpers.render(bytes, .attachment)
        XCTAssertEqual(rendered.width, 800)
        XCTAssertTrue(rendered.warnings.contains { $0.contains("4 extraneous bytes before marker 0xda") }, "\(rendered.warnings)")
    }
}
