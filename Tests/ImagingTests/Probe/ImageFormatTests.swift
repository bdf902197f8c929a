import Foundation
import XCTest
import TestSupport
import RichPush
@testable import RichPushCore
@testable import RichPushImaging

/// `ImageFormat` is the decodable part of the media table, and a probe told the format reads that format's header.
final class ImageFormatTests: XCTestCase {
    func testImageFormatIsExactlyTheDecodableRowsOfTheTable() {
        XCTAssertEqual(Set(ImageFormat.allCases.map(\.attachmentFormat)), Set(AttachmentFormat.allCases.filter(\.isDecodable)))
        for format in AttachmentFormat.allCases {
            XCTAssertEqual(ImageFormat(format)?.attachmentFormat, format.isDecodable ? format : nil, "\(format)")
        }
    }

    func testAProbeToldTheFormatReadsThatFormatsHeaderWithoutSniffing() throws {
        let jpeg = try ImagingHelpers.data("imaging/orientation_1.jpg")
        XCTAssertEqual(try ImageProbe.probe(jpeg, as: .jpeg).format, .jpeg)
        XCTAssertThrowsError(try ImageProbe.probe(jpeg, as: .png)) { error in
            XCTAssertEqual(error as? ImageError, .corrupt(reason: "PNG signature missing"))
        }
        XCTAssertThrowsError(try ImageProbe.probe(jpeg, sniffed: .mp3)) { error in
            XCTAssertEqual((error as? ImageError)?.code, .unsupportedFormat, "audio is not decoded")
        }
        XCTAssertThrowsError(try ImageProbe.probe(Data("<svg/>".utf8), sniffed: nil)) { error in
            XCTAssertEqual(error as? ImageError, .unsupportedFormat(detected: "SVG"))
        }
    }
}
