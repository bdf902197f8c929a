import Foundation
import RichPushCore
import TestSupport
import XCTest

/// The attachment table's signatures and the sniffer that reads them: unique names, the ISO media brand rules,
/// lookalikes that are neither audio nor video, and arbitrary bytes that never trap the sniffer or the box walk.
/// (`CacheTests.AttachmentFormatTests` checks the table against the fetcher's cap and the cache's publishing.)
final class AttachmentSnifferTests: XCTestCase {
    func testExtensionsMediaTypesAndBrandsAreUnique() {
        let formats = AttachmentFormat.allCases
        XCTAssertEqual(Set(formats.map(\.fileExtension)).count, formats.count)
        XCTAssertEqual(Set(formats.map(\.mediaType)).count, formats.count)
        for format in formats {
            XCTAssertEqual(AttachmentFormat(name: format.fileExtension), format)
            XCTAssertEqual(AttachmentFormat(name: format.rawValue.uppercased()), format)
        }
        let brands = formats.flatMap { format -> [String] in
            guard case .fileTypeBrands(let brands) = format.signature else { return [] }
            return Array(brands)
        }
        XCTAssertEqual(Set(brands).count, brands.count, "no brand names two formats")
        XCTAssertEqual(ISOMediaBrands.formats.count, brands.count)
        XCTAssertTrue(ISOMediaBrands.genericHEIF.isDisjoint(with: brands))
    }

    func testHEIFAndQuickTimeFollowTheirBrandRules() {
        func sniff(_ major: String, _ compatible: [String]) -> AttachmentFormat? {
            AttachmentSniffer.format(of: MediaSamples.isoMedia(brand: major, compatible: compatible))
        }
        XCTAssertEqual(sniff("heix", ["mif1"]), .heic)
        XCTAssertEqual(sniff("avis", ["msf1"]), .avif)
        XCTAssertEqual(sniff("mif1", ["avif", "miaf"]), .avif)
        XCTAssertEqual(sniff("mif1", ["heic"]), .heic)
        XCTAssertEqual(sniff("mif1", []), .heic, "a neutral major brand alone is HEIC")
        XCTAssertEqual(sniff("isoz", ["mif1", "avif"]), .avif, "an unknown major brand, HEIF by its compatible ones")
        XCTAssertEqual(sniff("mp42", ["mif1", "heic"]), .mp4, "a video major brand decides, whatever is compatible")
        XCTAssertEqual(sniff("qt  ", ["qt  ", "isom"]), .mp4, "a QuickTime movie that is also MP4")
        XCTAssertEqual(sniff("qt  ", ["qt  "]), .mov)
        XCTAssertNil(sniff("hevc", ["hevc"]), "an image sequence")
    }

    func testLookalikesAreNotAudioOrVideo() {
        func sniff(_ bytes: [UInt8]) -> AttachmentFormat? { AttachmentSniffer.format(ofFileStartingWith: bytes) }
        func ftyp(_ brand: String) -> [UInt8] { [0, 0, 0, 0x18] + Array("ftyp".utf8) + Array(brand.utf8) + [0, 0, 0, 0] }
        // HEIF stills share the ftyp box: their brands make images (or nothing), never audio or video.
        for brand in ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1", "avif", "avis"] {
            XCTAssertEqual(sniff(ftyp(brand))?.kind ?? .image, .image, brand)
        }
        XCTAssertNil(sniff([0, 0, 0, 0x08] + Array("ftypisom".utf8)), "an ftyp box too small to hold its brand")
        XCTAssertEqual(sniff(Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8 ".utf8)), .webp, "WebP is RIFF too")
        XCTAssertNil(sniff([0xFF, 0xF1, 0x50, 0x80, 0, 0, 0, 0, 0, 0, 0, 0]), "ADTS AAC has layer 00")
        XCTAssertNil(sniff([0xFF, 0xFB, 0xF0, 0x64, 0, 0, 0, 0, 0, 0, 0, 0]), "bitrate index 1111 is invalid")
        XCTAssertNil(sniff(Array("ID3".utf8) + [0x04, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0, 0]), "size not syncsafe")
        XCTAssertNil(sniff(Array("<!doctype html>".utf8)))
        XCTAssertEqual(AttachmentSniffer.kind(ofFileStartingWith: Array("<html>".utf8)), .image, "unknown bytes get the image cap")
    }

    func testArbitraryBytesNeverTrapTheSnifferOrTheBoxWalk() {
        var generator = SystemRandomNumberGenerator()
        let prefixes: [[UInt8]] = [[], Array("ID3".utf8), Array("RIFF".utf8), Array("FORM".utf8), [0xFF, 0xFB],
                                   [0, 0, 0, 1] + Array("ftypisom".utf8), [0, 0, 0, 0] + Array("ftypqt  ".utf8),
                                   [0, 0, 0, 0xFF] + Array("ftypmif1".utf8), [0, 0, 0, 0x10] + Array("ftypisoz".utf8)]
        for round in 0..<5_000 {
            let length = Int.random(in: 0...48, using: &generator)
            let bytes = prefixes[round % prefixes.count] + (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = AttachmentSniffer.format(ofFileStartingWith: bytes)
            _ = ISOMediaStructure.problem(with: Data(bytes))
        }
        XCTAssertNotNil(ISOMediaStructure.problem(with: Data([0, 0, 0, 1] + Array("moov".utf8) + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])),
                        "a largesize past Int.max")
        XCTAssertNil(ISOMediaStructure.problem(with: Data([0, 0, 0, 0] + Array("moov".utf8))), "size 0 runs to the end")
    }
}
