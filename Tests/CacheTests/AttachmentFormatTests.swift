import Foundation
import TestSupport
import XCTest

import RichPush
@testable import RichPushCore
@testable import RichPushCache
@testable import RichPushHTTP
@testable import RichPushPipeline

/// The attachment table, the sniffer that reads it and the cache's publishable check that follows it, with the cache's
/// helpers and the fetcher's cap (the sniffer's own rules, which need neither, are `CoreTests.AttachmentSnifferTests`).
final class AttachmentFormatTests: XCTestCase {
    /// A head that starts the way `signature` says, for each of its byte strings, forms or brands.
    private func heads(of signature: AttachmentSignature) -> [[UInt8]] {
        let padding = [UInt8](repeating: 0, count: 20)
        switch signature {
        case .prefix(let prefixes):
            return prefixes.map { $0 + padding }
        case .chunkContainer(let chunk, let forms):
            return forms.map { Array(chunk.utf8) + [0x40, 0, 0, 0] + Array($0.utf8) + padding }
        case .fileTypeBrands(let brands):
            return brands.map { [UInt8](MediaSamples.isoMedia(brand: $0, compatible: [$0]).prefix(ISOMediaBrands.brandInspectionLength)) }
        case .mpegAudio:
            return [[UInt8](MediaSamples.mp3().prefix(12)), [UInt8](MediaSamples.mpegFrame().prefix(12))]
        }
    }

    func testSniffingEachFormatsSignatureGivesItBack() {
        for format in AttachmentFormat.allCases {
            let heads = heads(of: format.signature)
            XCTAssertFalse(heads.isEmpty, "\(format) has a signature")
            for head in heads {
                XCTAssertEqual(AttachmentSniffer.format(ofFileStartingWith: head), format, "\(format): \(head.prefix(12))")
                XCTAssertEqual(AttachmentSniffer.kind(ofFileStartingWith: Array(head.prefix(AttachmentSniffer.decisiveLength))),
                               format.kind, "\(format): 12 bytes give the kind")
            }
        }
        for (name, bytes) in MediaSamples.all {
            XCTAssertEqual(AttachmentSniffer.format(of: bytes), AttachmentFormat(name: name), name)
        }
        XCTAssertEqual(AttachmentSniffer.format(of: MediaSamples.animatedGIF()), .gif)
        XCTAssertEqual(AttachmentSniffer.format(of: fakeJPEG("j")), .jpeg)
    }

    func testTheTableGivesExtensionTypeKindAndUse() {
        // Format, extension, media type, kind, decoded, published, attached.
        let expected: [(AttachmentFormat, String, String, AttachmentKind, Bool, Bool, Bool)] = [
            (.jpeg, "jpg", "image/jpeg", .image, true, true, true), (.png, "png", "image/png", .image, true, true, true),
            (.gif, "gif", "image/gif", .image, true, true, true), (.webp, "webp", "image/webp", .image, true, true, false),
            (.heic, "heic", "image/heic", .image, true, false, false), (.avif, "avif", "image/avif", .image, true, false, false),
            (.mp3, "mp3", "audio/mpeg", .audio, false, true, true), (.m4a, "m4a", "audio/mp4", .audio, false, true, true),
            (.aiff, "aiff", "audio/aiff", .audio, false, true, true), (.wav, "wav", "audio/wav", .audio, false, true, true),
            (.mp4, "mp4", "video/mp4", .video, false, true, true), (.mov, "mov", "video/quicktime", .video, false, true, false),
            (.m4v, "m4v", "video/x-m4v", .video, false, true, true),
        ]
        XCTAssertEqual(expected.count, AttachmentFormat.allCases.count)
        for (format, fileExtension, mediaType, kind, decoded, published, attached) in expected {
            XCTAssertEqual(format.fileExtension, fileExtension)
            XCTAssertEqual(format.mediaType, mediaType)
            XCTAssertEqual(format.kind, kind)
            XCTAssertEqual(format.isDecodable, decoded, "\(format)")
            XCTAssertEqual(format.isPublished, published, "\(format)")
            XCTAssertEqual(format.isAttachable, attached, "\(format)")
            XCTAssertEqual(AttachmentFormat(name: fileExtension), format)
        }
        XCTAssertEqual(AttachmentKind.audio.appleByteLimit, 5 * 1024 * 1024)
        XCTAssertEqual(AttachmentKind.video.appleByteLimit, 50 * 1024 * 1024)
        XCTAssertEqual(AttachmentKind.image.appleByteLimit, FetchConfiguration().maximumBytes)
    }

    func testTheCacheAcceptsAudioAndVideoWithoutDimensionsButNeverADecodeOnlyFormat() throws {
        for (name, bytes) in MediaSamples.all {
            let format = try XCTUnwrap(AttachmentFormat(name: name))
            XCTAssertNil(format.publishingProblem(bytes: bytes, width: 0, height: 0), name)
        }
        XCTAssertNotNil(
            CacheObjectFormat.jpeg.publishingProblem(bytes: fakeJPEG("x"), width: 0, height: 0),
            "an image still needs dimensions")
        XCTAssertNotNil(CacheObjectFormat.mp4.publishingProblem(bytes: Data(), width: 0, height: 0), "no bytes")
        for format in AttachmentFormat.allCases where !format.isPublished {
            XCTAssertEqual(format.publishingProblem(bytes: Data([1]), width: 8, height: 8)?.reason,
                           "\(format.rawValue) is decoded, never published")
        }
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
