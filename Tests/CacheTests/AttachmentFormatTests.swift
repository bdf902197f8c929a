import Foundation
import TestSupport
import XCTest

import RichPush
@testable import RichPushCore
@testable import RichPushCache
@testable import RichPushHTTP
@testable import RichPushPipeline

/// The attachment table, the sniffer that reads it and the cache's publishable check that follows it.
final class AttachmentFormatTests: XCTestCase {
    func testTheSnifferRecognisesEverySampleFromItsBytes() {
        for (name, bytes) in MediaSamples.all {
            let head = [UInt8](bytes.prefix(AttachmentSniffer.decisiveLength))
            XCTAssertEqual(AttachmentSniffer.format(ofFileStartingWith: head), AttachmentFormat(name: name), name)
        }
        let frameOnly = [UInt8](MediaSamples.mpegFrame().prefix(12))
        XCTAssertEqual(AttachmentSniffer.format(ofFileStartingWith: frameOnly), .mp3, "an MP3 without an ID3 tag")
        XCTAssertEqual(AttachmentSniffer.format(ofFileStartingWith: [UInt8](MediaSamples.animatedGIF().prefix(12))), .gif)
        XCTAssertEqual(AttachmentSniffer.format(ofFileStartingWith: [UInt8](fakeJPEG("j").prefix(12))), .jpeg)
    }

    func testLookalikesAreNotAudioOrVideo() {
        func sniff(_ bytes: [UInt8]) -> AttachmentFormat? { AttachmentSniffer.format(ofFileStartingWith: bytes) }
        func ftyp(_ brand: String) -> [UInt8] { [0, 0, 0, 0x18] + Array("ftyp".utf8) + Array(brand.utf8) + [0, 0, 0, 0] }
        // HEIF stills share the ftyp box: their brands belong to the image decoders, never to this table.
        for brand in ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1", "avif", "avis"] {
            XCTAssertNil(sniff(ftyp(brand)), brand)
            XCTAssertNil(ISOMediaBrands.formats[brand], brand)
        }
        XCTAssertNil(sniff([0, 0, 0, 0x08] + Array("ftypisom".utf8)), "an ftyp box too small to hold its brand")
        XCTAssertNil(sniff(Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8 ".utf8)), "WebP is RIFF too")
        XCTAssertNil(sniff([0xFF, 0xF1, 0x50, 0x80, 0, 0, 0, 0, 0, 0, 0, 0]), "ADTS AAC has layer 00")
        XCTAssertNil(sniff([0xFF, 0xFB, 0xF0, 0x64, 0, 0, 0, 0, 0, 0, 0, 0]), "bitrate index 1111 is invalid")
        XCTAssertNil(sniff(Array("ID3".utf8) + [0x04, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0, 0]), "size not syncsafe")
        XCTAssertNil(sniff(Array("<!doctype html>".utf8)))
        XCTAssertEqual(AttachmentSniffer.kind(ofFileStartingWith: Array("<html>".utf8)), .image, "unknown bytes get the image cap")
    }

    func testArbitraryBytesNeverTrapTheSnifferOrTheBoxWalk() {
        var generator = SystemRandomNumberGenerator()
        let prefixes: [[UInt8]] = [[], Array("ID3".utf8), Array("RIFF".utf8), Array("FORM".utf8), [0xFF, 0xFB],
                                   [0, 0, 0, 1] + Array("ftypisom".utf8), [0, 0, 0, 0] + Array("ftypqt  ".utf8)]
        for round in 0..<5_000 {
            let length = Int.random(in: 0...48, using: &generator)
            let bytes = prefixes[round % prefixes.count] + (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = AttachmentSniffer.format(ofFileStartingWith: Array(bytes.prefix(AttachmentSniffer.decisiveLength)))
            _ = ISOMediaStructure.problem(with: Data(bytes))
        }
        XCTAssertNotNil(ISOMediaStructure.problem(with: Data([0, 0, 0, 1] + Array("moov".utf8) + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])),
                        "a largesize past Int.max")
        XCTAssertNil(ISOMediaStructure.problem(with: Data([0, 0, 0, 0] + Array("moov".utf8))), "size 0 runs to the end")
    }

    func testTheTableGivesExtensionTypeAndKind() {
        let expected: [(AttachmentFormat, String, String, AttachmentKind)] = [
            (.jpeg, "jpg", "image/jpeg", .image), (.png, "png", "image/png", .image), (.gif, "gif", "image/gif", .image),
            (.mp3, "mp3", "audio/mpeg", .audio), (.m4a, "m4a", "audio/mp4", .audio), (.aiff, "aiff", "audio/aiff", .audio),
            (.wav, "wav", "audio/wav", .audio), (.mp4, "mp4", "video/mp4", .video), (.mov, "mov", "video/quicktime", .video),
            (.m4v, "m4v", "video/x-m4v", .video),
        ]
        XCTAssertEqual(expected.count, AttachmentFormat.allCases.count)
        for (format, fileExtension, mediaType, kind) in expected {
            XCTAssertEqual(format.fileExtension, fileExtension)
            XCTAssertEqual(format.mediaType, mediaType)
            XCTAssertEqual(format.kind, kind)
            XCTAssertEqual(AttachmentFormat(name: fileExtension), format)
        }
        XCTAssertEqual(AttachmentKind.audio.appleByteLimit, 5 * 1024 * 1024)
        XCTAssertEqual(AttachmentKind.video.appleByteLimit, 50 * 1024 * 1024)
        XCTAssertEqual(AttachmentKind.image.appleByteLimit, FetchConfiguration().maximumBytes)
    }

    func testTheCacheAcceptsAudioAndVideoWithoutDimensionsAndChecksTheirSignature() throws {
        for (name, bytes) in MediaSamples.all {
            let format = try XCTUnwrap(AttachmentFormat(name: name))
            XCTAssertNil(format.publishingProblem(bytes: bytes, width: 0, height: 0), name)
            XCTAssertNotNil(format.publishingProblem(bytes: fakeJPEG("x"), width: 0, height: 0), "\(name) with JPEG bytes")
        }
        XCTAssertNotNil(
            CacheObjectFormat.jpeg.publishingProblem(bytes: fakeJPEG("x"), width: 0, height: 0),
            "an image still needs dimensions")
        XCTAssertNotNil(CacheObjectFormat.mp4.publishingProblem(bytes: Data(), width: 0, height: 0), "no bytes")
    }

    func testAFileStorePublishesVideoUnderItsExtension() async throws {
        let root = try makeTemporaryDirectory()
        let store = try FileMediaStore(configuration: makeConfiguration(root: root))
        let bytes = MediaSamples.isoMedia(brand: "qt  ", compatible: ["qt  "], size: 1000)
        let cacheKey = key("https://video.example/clip")
        let outcome = try await store.object(
            for: cacheKey, sourceURL: "https://video.example/clip", variant: "attachment", retainUntil: nil,
            deadline: farDeadline()
        ) { _ in
            .object(bytes: bytes, format: .mov, width: 0, height: 0, etag: nil,
                    lastModified: nil, maxAge: nil)
        }
        let object = try XCTUnwrap(outcome.object)
        XCTAssertEqual(object.relativePath, "objects/\(cacheKey.shardPath)/\(cacheKey.hexDigest).mov")
        XCTAssertEqual(try Data(contentsOf: root.appendingPathComponent(object.relativePath)), bytes)
        let looked = try await store.lookup(cacheKey)
        XCTAssertEqual(looked?.format, .mov)
        let report = try await store.verify(repair: false)
        XCTAssertEqual(report.healthyObjects, 1)
        XCTAssertEqual(report.mismatchedObjects + report.orphanObjects + report.unreadableMetadata, [])
    }
}
