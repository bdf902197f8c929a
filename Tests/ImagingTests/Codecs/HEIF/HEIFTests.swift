import Foundation
import XCTest
import TestSupport
import RichPush
@testable import RichPushCore
@testable import RichPushImaging

/// HEIC and AVIF through libheif. Fixtures are made by Fixtures/imaging/make_heif_fixtures.py with heif-enc from
/// the 64x48 orientation fixtures (upright: red top-left, green top-right, blue bottom-left, white bottom-right).
final class HEIFTests: XCTestCase {
    private func assertUpright(_ rendered: RenderedImage, _ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual([rendered.width, rendered.height], [64, 48], name, file: file, line: line)
        let image = try ImagingHelpers.decodeRGBA(rendered.bytes)
        let corners = [(3, 3, [255, 0, 0]), (60, 3, [0, 255, 0]), (3, 44, [0, 0, 255]), (60, 44, [255, 255, 255])]
        for (x, y, expected) in corners {
            let actual = Array(ImagingHelpers.pixel(image, x, y).prefix(3))
            let worst = zip(actual, expected).map { abs($0 - $1) }.max() ?? 0
            XCTAssertLessThanOrEqual(worst, 40, "\(name) at (\(x), \(y)): \(actual) vs \(expected)", file: file, line: line)
        }
    }

    func testThisLibheifDecodesHEVCAndAV1() {
        // Debian's libheif 1.15 links libde265 and dav1d (and aom) in; without them every HEIC or AVIF would fail.
        XCTAssertTrue(HEIFDecoder.canDecode(.heic))
        XCTAssertTrue(HEIFDecoder.canDecode(.avif))
        XCTAssertFalse(HEIFDecoder.canDecode(.jpeg))
    }

    func testFormatIsSniffedFromFtypBrands() throws {
        func ftyp(_ major: String, _ compatible: [String]) -> Data {
            let body = Array(major.utf8) + [0, 0, 0, 0] + compatible.flatMap { Array($0.utf8) }
            return Data(bigEndian32(UInt32(body.count + 8)) + Array("ftyp".utf8) + body + [UInt8](repeating: 0, count: 16))
        }
        XCTAssertEqual(try ImageFormat(sniffing: ftyp("heic", ["mif1", "heic"])), .heic)
        XCTAssertEqual(try ImageFormat(sniffing: ftyp("heix", ["mif1"])), .heic)
        XCTAssertEqual(try ImageFormat(sniffing: ftyp("avif", ["mif1", "miaf"])), .avif)
        XCTAssertEqual(try ImageFormat(sniffing: ftyp("avis", ["msf1"])), .avif)
        XCTAssertEqual(try ImageFormat(sniffing: ftyp("mif1", ["avif", "miaf"])), .avif)
        XCTAssertEqual(try ImageFormat(sniffing: ftyp("mif1", ["heic"])), .heic)
        XCTAssertEqual(try ImageFormat(sniffing: ftyp("mif1", [])), .heic)
        XCTAssertThrowsError(try ImageFormat(sniffing: ftyp("isom", ["iso2", "mp41"]))) { error in
            XCTAssertEqual(error as? ImageError, .unsupportedFormat(detected: "ISO media (isom)"))
        }
        XCTAssertEqual(try ImageFormat(sniffing: try ImagingHelpers.data("imaging/photo.heic")), .heic)
        XCTAssertEqual(try ImageFormat(sniffing: try ImagingHelpers.data("imaging/photo.avif")), .avif)
    }

    func testProbeReadsThePrimaryImageFromTheMetaBox() throws {
        let photo = try ImageProbe.probe(try ImagingHelpers.data("imaging/photo.heic"))
        var expected = ImageProbe(format: .heic, width: 64, height: 48, hasAlpha: false, isAnimated: false,
                                  orientation: 1, hasICCProfile: false)
        expected.codedPixels = 64 * 64   // heif-enc codes it as one 64x64 tile of a 64x48 grid
        expected.decodeWork = 64 * 64 * 3   // every coded pixel's three channels
        XCTAssertEqual(photo, expected)
        XCTAssertEqual(try ImageProbe.probe(try ImagingHelpers.data("imaging/photo.avif")).format, .avif)
        let alpha = try ImageProbe.probe(try ImagingHelpers.data("imaging/alpha.heic"))
        XCTAssertEqual([alpha.width, alpha.height], [32, 32])
        XCTAssertTrue(alpha.hasAlpha)
        XCTAssertTrue(try ImageProbe.probe(try ImagingHelpers.data("imaging/alpha.avif")).hasAlpha)
        XCTAssertTrue(try ImageProbe.probe(try ImagingHelpers.data("imaging/icc.heic")).hasICCProfile)
        // Stored 48x64; irot turns it to 64x48. The EXIF orientation (6) is not HEIF's and is never reported.
        let rotated = try ImageProbe.probe(try ImagingHelpers.data("imaging/rotated.heic"))
        XCTAssertEqual([rotated.width, rotated.height, rotated.orientation], [64, 48, 1])
        let second = try ImageProbe.probe(try ImagingHelpers.data("imaging/second_primary.heic"))
        XCTAssertEqual([second.width, second.height], [32, 32])
        XCTAssertTrue(second.hasAlpha)
    }

    func testHEICAndAVIFRenderToUprightJPEG() throws {
        for name in ["photo.heic", "photo.avif"] {
            let rendered = try ImagingHelpers.render(try ImagingHelpers.data("imaging/\(name)"), .attachment)
            XCTAssertEqual(rendered.format, .jpeg, name)
            XCTAssertEqual(rendered.source.format, name.hasSuffix("avif") ? .avif : .heic)
            try assertUpright(rendered, name)
        }
    }

    /// rotated.heic stores the image turned with EXIF orientation 6 and an irot box saying the same thing, as an
    /// iPhone writes it: applying both would give 48x64 on its side.
    func testIrotAndImirAreAppliedOnceAndEXIFOrientationIsIgnored() throws {
        for name in ["rotated.heic", "mirrored.heic"] {
            let rendered = try ImagingHelpers.render(try ImagingHelpers.data("imaging/\(name)"), .attachment)
            try assertUpright(rendered, name)
            XCTAssertEqual(try ImageProbe.probe(rendered.bytes).orientation, 1)
        }
        // Into a box of the other aspect, the rotated image is planned from its upright size.
        let story = try ImagingHelpers.render(try ImagingHelpers.data("imaging/rotated.heic"),
                                           ImageVariant(name: "small", width: 32, height: 16, fit: .cover))
        XCTAssertEqual([story.width, story.height], [32, 16])
    }

    func testAlphaRendersToPNGWithTheSourceTranslucency() throws {
        let source = try ImagingHelpers.decodeRGBA(try ImagingHelpers.data("conformance/png/basn6a08.png"))
        for name in ["alpha.heic", "alpha.avif"] {
            let rendered = try ImagingHelpers.render(try ImagingHelpers.data("imaging/\(name)"), .attachment)
            XCTAssertEqual(rendered.format, .png, name)
            XCTAssertEqual([rendered.width, rendered.height], [32, 32], name)
            let image = try ImagingHelpers.decodeRGBA(rendered.bytes)
            for (x, y) in [(2, 2), (16, 16), (29, 5), (5, 29)] {
                let alpha = ImagingHelpers.pixel(image, x, y)[3], expected = ImagingHelpers.pixel(source, x, y)[3]
                XCTAssertLessThanOrEqual(abs(alpha - expected), 24, "\(name) alpha at (\(x), \(y)): \(alpha) vs \(expected)")
            }
        }
    }

    func testTenBitHEICIsRenderedAtEightBitsWithItsColours() throws {
        let source = try ImagingHelpers.decodeRGBA(try ImagingHelpers.data("conformance/png/basn2c16.png"))
        let rendered = try ImagingHelpers.render(try ImagingHelpers.data("imaging/ten_bit.heic"), .attachment)
        XCTAssertEqual(rendered.format, .jpeg)
        let image = try ImagingHelpers.decodeRGBA(rendered.bytes)
        XCTAssertEqual([image.width, image.height], [32, 32])
        for (x, y) in [(4, 4), (16, 16), (27, 4), (4, 27), (27, 27)] {
            let actual = Array(ImagingHelpers.pixel(image, x, y).prefix(3)), expected = Array(ImagingHelpers.pixel(source, x, y).prefix(3))
            let worst = zip(actual, expected).map { abs($0 - $1) }.max() ?? 0
            XCTAssertLessThanOrEqual(worst, 24, "(\(x), \(y)): \(actual) vs \(expected)")
        }
    }

    func testICCProfileIsCarriedIntoTheOutput() throws {
        let expected = try JPEGDecoder.decode(try ImagingHelpers.data("imaging/icc_srgb.jpg"), budget: ImagingHelpers.farBudget).iccProfile
        XCTAssertNotNil(expected)
        // Associated with the grid (heif-enc), or with its tiles only (libheif then reports it for the grid).
        for name in ["icc.heic", "icc_on_tile.heic"] {
            XCTAssertTrue(try ImageProbe.probe(try ImagingHelpers.data("imaging/\(name)")).hasICCProfile, name)
            let rendered = try ImagingHelpers.render(try ImagingHelpers.data("imaging/\(name)"), .attachment)
            let output = try JPEGDecoder.decode(rendered.bytes, budget: ImagingHelpers.farBudget)
            XCTAssertEqual(output.iccProfile, expected, name)
        }
        let plain = try ImagingHelpers.render(try ImagingHelpers.data("imaging/photo.heic"), .attachment)
        XCTAssertFalse(try ImageProbe.probe(plain.bytes).hasICCProfile)
    }

    func testThePrimaryImageIsRenderedNotTheFirst() throws {
        // The first image is 64x48 and opaque; pitm names the second, 32x32 with alpha.
        let rendered = try ImagingHelpers.render(try ImagingHelpers.data("imaging/second_primary.heic"), .attachment)
        XCTAssertEqual([rendered.width, rendered.height], [32, 32])
        XCTAssertEqual(rendered.format, .png)
    }

    func testTruncatedAndDamagedFilesFailAsCorrupt() throws {
        let bytes = try ImagingHelpers.data("imaging/photo.heic")
        for length in stride(from: 16, to: bytes.count, by: 37) {
            XCTAssertThrowsError(try ImagingHelpers.render(bytes.prefix(length), .attachment), "\(length) bytes") { error in
                XCTAssertEqual((error as? ImageError)?.code, "corrupt_image", "\(length) bytes: \(error)")
            }
        }
        // The coded picture damaged: libheif (libde265) refuses it or decodes something; never a crash.
        var damaged = bytes
        for index in stride(from: bytes.count - 150, to: bytes.count - 40, by: 3) { damaged[index] ^= 0x5A }
        _ = try? ImagingHelpers.render(damaged, .attachment)
    }

    /// The heif fuzz target's first finding: an AVIF whose nclx box names reserved colour primaries. libheif 1.15
    /// allocates the nclx profile and then returns an error, and the decoder leaked it (LeakSanitizer, 52 bytes
    /// per image). The file stays in the fuzz corpus, where LeakSanitizer replays it on every CI run.
    func testAVIFWithReservedColourPrimariesRendersWithoutAProfile() throws {
        let bytes = try ImagingHelpers.data("fuzz/heif/leak-nclx-unknown-primaries.avif")
        let rendered = try ImagingHelpers.render(bytes, .attachment)
        XCTAssertEqual([rendered.width, rendered.height], [32, 32])
        XCTAssertFalse(try ImageProbe.probe(rendered.bytes).hasICCProfile)
    }

    /// The second finding: an AVIF whose image item has no extent. libheif passes dav1d no data, and dav1d
    /// refuses it and leaks 40 bytes; the probe refuses an image item without data before libheif sees it.
    func testImageItemWithoutDataIsCorruptBeforeLibheif() throws {
        let bytes = try ImagingHelpers.data("fuzz/heif/leak-dav1d-empty-item.avif")
        XCTAssertThrowsError(try ImageProbe.probe(bytes)) { error in
            XCTAssertEqual(error as? ImageError, .corrupt(reason: "HEIF image item 1 has no coded data"))
        }
        // The third: the alpha plane's extent has length 0, "to the end of the file" in ISO base media but no data
        // to libheif 1.15, which again hands dav1d an empty buffer.
        let zeroLength = try ImagingHelpers.data("fuzz/heif/leak-dav1d-zero-length-extent.avif")
        XCTAssertThrowsError(try ImageProbe.probe(zeroLength)) { error in
            XCTAssertEqual(error as? ImageError, .corrupt(reason: "HEIF image item 2 has no coded data"))
        }
    }

    /// The fourth, a crash of our own: an ipma box shorter than its 8-byte header made the association loop's
    /// range negative (a Swift trap, so a crash of the worker).
    func testBoxesShorterThanTheirFieldsAreCorrupt() throws {
        let bytes = try ImagingHelpers.data("fuzz/heif/crash-ipma-shorter-than-its-header.heic")
        XCTAssertThrowsError(try ImagingHelpers.render(bytes, .attachment)) { error in
            XCTAssertEqual((error as? ImageError)?.code, "corrupt_image", "\(error)")
        }
    }

    /// The fifth, once the fuzzer decoded in process again beside the worker: a HEIC whose meta box is followed by
    /// an AVIF's. The header walk checked the first and libheif 1.15 decodes the last, so none of the checks held
    /// (and dav1d leaked 40 bytes on the AVIF's alpha plane). A second meta box is corrupt.
    func testASecondMetaBoxIsCorruptBeforeLibheif() throws {
        try assertCorruptBeforeLibheif(ImagingHelpers.data("fuzz/heif/leak-dav1d-second-meta-box.heic"), format: .heic,
                                       reason: "HEIF has 2 meta boxes, where one is allowed")
    }

    /// The sixth: an AVIF whose iloc box lists item 1 twice, first with length 0. libheif 1.15 reads the first
    /// entry and hands dav1d an empty buffer (40 bytes leaked); the header walk had kept the second, which looked
    /// fine. An item located twice is corrupt.
    func testAnItemLocatedTwiceIsCorruptBeforeLibheif() throws {
        try assertCorruptBeforeLibheif(ImagingHelpers.data("fuzz/heif/leak-dav1d-item-located-twice.avif"), format: .avif,
                                       reason: "HEIF iloc lists item 1 twice")
    }

    /// The same hole in general: libheif 1.15 reads the first pitm, iinf, iprp, iloc (and so on) of the meta box,
    /// the first ipco of iprp and the first entry of an item, so any second one could hide what libheif decodes
    /// from the header checks (a small ispe or coded size in front of a large one). Each is corrupt.
    func testEveryBoxOrEntryLibheifWouldReadOnceIsCorruptWhenRepeated() throws {
        let photo = [UInt8](try ImagingHelpers.data("imaging/photo.heic"))
        func box(_ path: [String]) -> [UInt8] { let range = Self.box(at: path, in: photo)!; return Array(photo[range]) }
        let cases: [(path: [String], copied: [String], reason: String)] = [
            (["meta"], ["meta", "pitm"], "HEIF meta box has 2 pitm boxes, where one is allowed"),
            (["meta"], ["meta", "iloc"], "HEIF meta box has 2 iloc boxes, where one is allowed"),
            (["meta"], ["meta", "iprp"], "HEIF meta box has 2 iprp boxes, where one is allowed"),
            (["meta"], ["meta", "iinf"], "HEIF meta box has 2 iinf boxes, where one is allowed"),
            (["meta"], ["meta", "iref"], "HEIF meta box has 2 iref boxes, where one is allowed"),
            (["meta"], ["meta", "hdlr"], "HEIF meta box has 2 hdlr boxes, where one is allowed"),
            (["meta", "iprp"], ["meta", "iprp", "ipco"], "HEIF iprp box has 2 ipco boxes, where one is allowed"),
            (["meta", "iprp"], ["meta", "iprp", "ipma"], "HEIF ipma lists item 1 twice"),
            (["meta", "iinf"], ["meta", "iinf", "infe"], "HEIF iinf lists item 1 twice"),
        ]
        XCTAssertNoThrow(try ImageProbe.probe(Data(photo)))
        for (path, copied, reason) in cases {
            assertCorruptBeforeLibheif(Data(Self.appending(box(copied), to: path, in: photo)), format: .heic,
                                       reason: reason, "\(copied)")
        }
    }

    /// Two properties libheif 1.15 reads the last of: an image's size (heif-info reports two_ispe.heic as
    /// 16000x16000, where the header walk read 64x48 from the first ispe), and its alpha plane (the last of its own
    /// size, where the walk checked the first). Either twice is corrupt.
    func testTwoSizesOrTwoAlphaPlanesForOneImageAreCorrupt() throws {
        let cases = ["two_ispe.heic": "HEIF item 2 has 2 ispe properties, where one is allowed",
                     "two_alpha_planes.heic": "HEIF image 2 has 2 alpha planes, where one is allowed"]
        for (name, reason) in cases {
            let bytes = try ImagingHelpers.data("imaging/\(name)")
            XCTAssertThrowsError(try ImageProbe.probe(bytes), name) { error in
                XCTAssertEqual(error as? ImageError, .corrupt(reason: reason))
            }
            XCTAssertThrowsError(try ImagingHelpers.render(bytes, .attachment), name) { error in
                XCTAssertEqual(error as? ImageError, .corrupt(reason: reason))
            }
        }
    }

    /// Both the probe and the decoder refuse `bytes` as corrupt for `reason`, from the header walk (the decoder walks
    /// it again before libheif runs).
    private func assertCorruptBeforeLibheif(_ bytes: Data, format: ImageFormat, reason: String, _ message: String = "",
                                            file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try ImageProbe.probe(bytes), message, file: file, line: line) { error in
            XCTAssertEqual(error as? ImageError, .corrupt(reason: reason), message, file: file, line: line)
        }
        XCTAssertThrowsError(try HEIFDecoder.decode(bytes, format: format, limits: ImageLimits(), budget: ImagingHelpers.farBudget),
                             message, file: file, line: line) { error in
            XCTAssertEqual(error as? ImageError, .corrupt(reason: reason), message, file: file, line: line)
        }
    }

    /// Where a box's children start, past its header (and a full box's version, flags and entry count).
    private static let childrenOffset: [String: Int] = ["meta": 12, "iprp": 8, "iinf": 14]

    /// The byte range of the first box of each type along `path` (32-bit sizes), top level first.
    private static func box(at path: [String], in bytes: [UInt8]) -> Range<Int>? {
        var range = 0..<bytes.count
        for (depth, type) in path.enumerated() {
            var offset = range.lowerBound + (depth == 0 ? 0 : childrenOffset[path[depth - 1]]!)
            var found: Range<Int>?
            while offset + 8 <= range.upperBound, found == nil {
                let size = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
                guard size >= 8 else { return nil }
                if String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self) == type { found = offset..<(offset + size) }
                offset += size
            }
            guard let found else { return nil }
            range = found
        }
        return range
    }

    /// `bytes` with `child` appended to the children of the box at `path`, each enclosing box's size grown (and an
    /// iinf's entry count).
    private static func appending(_ child: [UInt8], to path: [String], in bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        let parent = box(at: path, in: bytes)!
        bytes.insert(contentsOf: child, at: parent.upperBound)
        for depth in 1...path.count {
            let start = box(at: Array(path.prefix(depth)), in: bytes)!.lowerBound
            let size = bytes[start..<(start + 4)].reduce(0) { $0 << 8 | Int($1) } + child.count
            for index in 0..<4 { bytes[start + index] = UInt8(truncatingIfNeeded: size >> (24 - 8 * index)) }
        }
        if path.last == "iinf" { bytes[parent.lowerBound + 13] += 1 }
        return bytes
    }

    func testAnExpiredDeadlineStopsBeforeTheDecode() throws {
        let bytes = try ImagingHelpers.data("imaging/photo.heic")
        XCTAssertThrowsError(try HEIFDecoder.decode(bytes, format: .heic, limits: ImageLimits(),
                                                    budget: WorkBudget(deadline: .now - .milliseconds(1)))) { error in
            XCTAssertEqual(error as? ImageError, .deadlineExceeded)
        }
    }

    /// libheif decodes a whole image in one call that cannot be interrupted, so it runs in a worker process: when
    /// the deadline passes the worker is killed and reaped, the decode returns at once, and no CPU stays in use.
    /// (Before, the render thread ran on to the end of the decode, 12 MP here, whatever the deadline.)
    func testADecodePastItsDeadlineIsKilledAndItsCoreFreed() throws {
        let bytes = try ImagingHelpers.data("imaging/large_grid.heic")
        XCTAssertLessThan(bytes.count, 20_000)
        let probe = try ImageProbe.probe(bytes)
        XCTAssertEqual([probe.width, probe.height], [4096, 3072], "48 tiles of 512x512, as an iPhone lays out 12 MP")

        // The whole decode, for comparison: its CPU is the worker's, counted once the worker is reaped.
        let cpuBefore = ImagingHelpers.reapedChildrenCPUTime()
        let fullStart = ContinuousClock.now
        let full = try HEIFDecoder.decode(bytes, format: .heic, limits: ImageLimits(), budget: ImagingHelpers.farBudget)
        let fullTime = ContinuousClock.now - fullStart
        let fullCPU = ImagingHelpers.reapedChildrenCPUTime() - cpuBefore
        XCTAssertEqual([full.pixels.width, full.pixels.height], [4096, 3072])
        XCTAssertGreaterThan(fullCPU, fullTime / 4, "the decode ran in a worker process, reaped")

        let killedBefore = ImagingHelpers.reapedChildrenCPUTime()
        let start = ContinuousClock.now
        XCTAssertThrowsError(try HEIFDecoder.decode(bytes, format: .heic, limits: ImageLimits(),
                                                    budget: WorkBudget(deadline: .now + .milliseconds(20)))) { error in
            XCTAssertEqual(error as? ImageError, .deadlineExceeded)
        }
        let answered = ContinuousClock.now - start
        let killedCPU = ImagingHelpers.reapedChildrenCPUTime() - killedBefore
        // Answered at its 20 ms deadline, not after the whole decode (a wall-clock bound would measure the machine).
        XCTAssertLessThan(answered, fullTime, "the whole decode takes \(fullTime)")
        XCTAssertEqual(ImagingHelpers.childProcesses(), [], "the worker was reaped before the decode returned")
        XCTAssertLessThan(killedCPU, fullCPU / 2, "the killed worker used \(killedCPU) of a \(fullCPU) decode")
    }

    /// A cancelled render answers at once (as for every format), and its worker is killed within milliseconds
    /// instead of decoding on.
    func testACancelledRenderAnswersAtOnceAndEndsItsWorker() async throws {
        let bytes = try ImagingHelpers.data("imaging/large_grid.heic")
        let pipeline = ImagePipeline()
        let render = Task { try await pipeline.render(bytes, as: .attachment, deadline: .now + .seconds(60)) }
        try await waitUntil(timeout: .seconds(10), "the decode worker to start", interval: .milliseconds(2)) {
            !ImagingHelpers.childProcesses().isEmpty
        }
        let cancelled = ContinuousClock.now
        render.cancel()
        let result = await render.result
        XCTAssertLessThan(ContinuousClock.now - cancelled, .seconds(1))
        XCTAssertThrowsError(try result.get()) { error in XCTAssertEqual(error as? ImageError, .cancelled) }
        try await waitUntil(timeout: .seconds(1), "the decode worker to be killed and reaped", interval: .milliseconds(5)) {
            ImagingHelpers.childProcesses().isEmpty
        }
    }

    /// The outage: HEIF decodes past their deadline kept every render thread busy, so valid jobs queued
    /// behind them failed at their own deadline. Now the threads are free at the bombs' deadline and a small image
    /// queued behind one bomb per render thread (each with 100 ms left) renders within its 300 ms (before, the threads
    /// were busy until the 12 MP decodes ended, 0.4-0.7 s).
    func testDecodesPastTheirDeadlineLeaveTheRenderThreadsToTheNextJob() async throws {
        let bomb = try ImagingHelpers.data("imaging/large_grid.heic"), valid = try ImagingHelpers.data("imaging/photo.heic")
        let pipeline = ImagePipeline()
        let threads = ProcessInfo.processInfo.activeProcessorCount
        let bombs = (0..<threads).map { _ in
            Task { try await pipeline.render(bomb, as: .attachment, deadline: .now + .milliseconds(100)) }
        }
        // The bombs are on the render threads first (the expensive lane lets one fewer than the threads decode).
        try await waitUntil(timeout: .seconds(10), "a bomb's decode worker to start", interval: .milliseconds(1)) {
            !ImagingHelpers.childProcesses().isEmpty
        }
        let rendered = try await pipeline.render(valid, as: .attachment, deadline: .now + .milliseconds(300))
        XCTAssertEqual([rendered.width, rendered.height], [64, 48])
        for bomb in bombs {
            let result = await bomb.result
            XCTAssertThrowsError(try result.get()) { error in XCTAssertEqual(error as? ImageError, .deadlineExceeded) }
        }
        XCTAssertEqual(ImagingHelpers.childProcesses(), [])
    }
}
