import Foundation
import XCTest
import TestSupport
import RichPush
@testable import RichPushCore
@testable import RichPushImaging

/// The `ispe` box is only a claim: the header walk reads the coded size from HEVC's sequence parameter sets and
/// AV1's sequence headers and refuses a file whose `ispe` (or grid descriptor) disagrees, before libheif decodes
/// anything. Files are the HEIF fixtures with a box field patched in place.
final class HEIFCodedSizeTests: XCTestCase {
    private func ispe(_ width: UInt32, _ height: UInt32) -> [UInt8] { bigEndian32(width) + bigEndian32(height) }

    private func assertCorruptBeforeDecoding(_ bytes: Data, format: ImageFormat, limits: ImageLimits = ImageLimits(),
                                             mentioning text: String, file: StaticString = #filePath, line: UInt = #line) {
        // The probe is a header walk: it never calls libheif, so refusing here is refusing without decoding.
        XCTAssertThrowsError(try ImageProbe.probe(bytes, limits: limits), file: file, line: line) { error in
            XCTAssertEqual((error as? ImageError)?.code, "corrupt_image", "\(error)", file: file, line: line)
            XCTAssertTrue("\(error)".contains(text), "\(error)", file: file, line: line)
        }
        // The decoder walks the same header first, so it refuses the file on its own too.
        XCTAssertThrowsError(try HEIFDecoder.decode(bytes, format: format, limits: limits, budget: ImagingHelpers.farBudget),
                             file: file, line: line) { error in
            XCTAssertTrue("\(error)".contains(text), "\(error)", file: file, line: line)
        }
    }

    func testHEICWhoseISPEIsSmallerThanItsSequenceParameterSetIsCorrupt() throws {
        // photo.heic's picture and its thumbnail are each a 64x64 HEVC tile; both ispe boxes now say 16x16.
        let bytes = try ImagingHelpers.data("imaging/photo.heic")
        let tile = Array("ispe".utf8) + [0, 0, 0, 0] + ispe(64, 64)
        let source = [UInt8](bytes)
        var patched = source
        var index = 0
        while let found = (index...(source.count - tile.count)).first(where: { source[$0..<$0 + tile.count].elementsEqual(tile) }) {
            patched.replaceSubrange(found + 8..<found + 16, with: ispe(16, 16))
            index = found + 1
        }
        XCTAssertNotEqual(patched, source)
        assertCorruptBeforeDecoding(Data(patched), format: .heic, mentioning: "coded as 64x64 but its ispe says 16x16")
    }

    func testAVIFWhoseISPEIsSmallerThanItsSequenceHeaderIsCorrupt() throws {
        // photo.avif's av1C carries no sequence header: the one at the start of the item's data is read (via iloc).
        let bytes = ImagingHelpers.patching(try ImagingHelpers.data("imaging/photo.avif"), ispe(64, 48), with: ispe(8, 8))
        assertCorruptBeforeDecoding(bytes, format: .avif, mentioning: "coded as 64x48 but its ispe says 8x8")
    }

    /// The grid: tiles sharing one coded picture whose ispe claims a fraction of its size, so the canvas
    /// and tile checks pass while every tile costs a full decode (here 48 x 512x512 under a 512x384 canvas).
    func testGridTilesSharingAPictureLargerThanTheirISPEAreCorrupt() throws {
        var bytes = try ImagingHelpers.data("imaging/large_grid.heic")
        bytes = ImagingHelpers.patching(bytes, ispe(512, 512), with: ispe(64, 64))
        bytes = ImagingHelpers.patching(bytes, ispe(4096, 3072), with: ispe(512, 384))
        bytes = ImagingHelpers.patching(bytes, [0, 0, 5, 7, 0x10, 0x00, 0x0C, 0x00], with: [0, 0, 5, 7, 0x02, 0x00, 0x01, 0x80])
        assertCorruptBeforeDecoding(bytes, format: .heic, mentioning: "coded as 512x512 but its ispe says 64x64")
    }

    func testGridDescriptorDisagreeingWithTheGridISPEIsCorrupt() throws {
        let bytes = ImagingHelpers.patching(try ImagingHelpers.data("imaging/large_grid.heic"),
                                            [0, 0, 5, 7, 0x10, 0x00, 0x0C, 0x00], with: [0, 0, 5, 7, 0x0F, 0xA0, 0x0B, 0xB8])
        assertCorruptBeforeDecoding(bytes, format: .heic, mentioning: "4000x3000 by its descriptor but 4096x3072 by its ispe")
    }

    /// A 4000x3000 canvas (12.0 MP, within a 12.2 MP limit) of 48 tiles of 512x512 (12.6 MP): each tile is a
    /// decoder run at its coded size, so the tiles together are held to the pixel limit, not only the canvas.
    func testGridTilesHoldingMorePixelsThanTheLimitAreRefused() throws {
        var bytes = try ImagingHelpers.data("imaging/large_grid.heic")
        bytes = ImagingHelpers.patching(bytes, ispe(4096, 3072), with: ispe(4000, 3000))
        bytes = ImagingHelpers.patching(bytes, [0, 0, 5, 7, 0x10, 0x00, 0x0C, 0x00], with: [0, 0, 5, 7, 0x0F, 0xA0, 0x0B, 0xB8])
        let limits = ImageLimits(maximumPixels: 12_200_000)
        assertCorruptBeforeDecoding(bytes, format: .heic, limits: limits,
                                    mentioning: "12582912 coded pixels, more than the 12200000-pixel limit")
        // Within a limit that holds the tiles, the same file is accepted: the canvas is what the ispe says.
        let probe = try ImageProbe.probe(bytes, limits: ImageLimits(maximumPixels: 12_582_912))
        XCTAssertEqual([probe.width, probe.height, probe.codedPixels], [4000, 3000, 48 * 512 * 512])
    }

    func testTheMemoryEstimateCountsTheCodedTiles() throws {
        let probe = try ImageProbe.probe(try ImagingHelpers.data("imaging/photo.heic"))
        var claimed = probe
        claimed.codedPixels = 100 * probe.codedPixels!
        let pipeline = ImagePipeline()
        XCTAssertGreaterThan(pipeline.renderPlan(for: claimed, as: .attachment).estimatedPeakBytes,
                             pipeline.renderPlan(for: probe, as: .attachment).estimatedPeakBytes + 99 * 64 * 64 * 2)
    }

    // MARK: the parsers, on headers written bit by bit

    /// An SPS NAL unit for `width`x`height` with two sub-layers (so profile_tier_level has sub-layer flags and a
    /// sub-layer profile to skip) and a conformance window, with the emulation-prevention bytes an encoder inserts.
    private func sequenceParameterSet(width: Int, height: Int, cropRight: Int, cropBottom: Int) -> [UInt8] {
        var bits = BitWriter()
        bits.write(0x4201, 16)                        // NAL header: type 33
        bits.write(0, 4); bits.write(1, 3); bits.write(1, 1)   // vps id, max_sub_layers_minus1 = 1, nesting
        bits.write(0, 96)                             // general profile, tier and level: zeros need escaping
        bits.write(1, 1); bits.write(0, 1)            // sub-layer 0: profile present, level absent
        bits.write(0, 2 * 7)                          // reserved, up to eight entries
        bits.write(0, 88)                             // sub-layer 0's profile
        bits.exponentialGolomb(0)                     // sps_seq_parameter_set_id
        bits.exponentialGolomb(1)                     // chroma_format_idc 4:2:0
        bits.exponentialGolomb(width); bits.exponentialGolomb(height)
        bits.write(1, 1)                              // conformance_window_flag
        for offset in [0, cropRight / 2, 0, cropBottom / 2] { bits.exponentialGolomb(offset) }
        bits.write(1, 1)
        var escaped: [UInt8] = [], zeros = 0
        for byte in bits.bytes {
            if zeros >= 2 && byte <= 3 { escaped.append(3); zeros = 0 }
            escaped.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return escaped
    }

    func testSequenceParameterSetSizeIsReadPastEmulationPreventionAndSubLayers() {
        let unit = sequenceParameterSet(width: 6000, height: 6000, cropRight: 16, cropBottom: 8)
        XCTAssertTrue(unit.count > 20 && unit.contains(3), "the zeros of the profile are escaped")
        var bits = HEIFBitReader.unescapingNAL(unit)
        let size = HEIFCodedSize.parseSequenceParameterSet(&bits)
        XCTAssertEqual(size, HEIFCodedSize(width: 6000, height: 6000, croppedWidth: 5984, croppedHeight: 5992))
        // The ispe of a cropped picture agrees; one that hides the picture behind a small claim does not.
        XCTAssertEqual(size?.agrees(withWidth: 5984, height: 5992, isAV1: false), true)
        XCTAssertEqual(size?.agrees(withWidth: 6000, height: 6000, isAV1: false), true)
        XCTAssertEqual(size?.agrees(withWidth: 64, height: 64, isAV1: false), false)
        // A window that crops more than one 64-pixel block is not padding.
        let hidden = HEIFCodedSize(width: 6000, height: 6000, croppedWidth: 64, croppedHeight: 64)
        XCTAssertFalse(hidden.agrees(withWidth: 64, height: 64, isAV1: false))
    }

    /// hvcC's SPS and the item data's NAL units are read as the decoder will see them: an SPS in the data counts
    /// too (the decoder would use it), and the walk stops at `maximumUnits` units however many the file holds.
    func testEverySequenceParameterSetInTheConfigurationAndTheDataIsRead() throws {
        func hvcC(_ sps: [UInt8]) -> [UInt8] {
            [UInt8](repeating: 0, count: 21) + [3, 1, 0x80 | 33, 0, 1] + [UInt8(sps.count >> 8), UInt8(sps.count & 255)] + sps
        }
        func unit(_ bytes: [UInt8]) -> [UInt8] { bigEndian32(UInt32(bytes.count)) + bytes }
        let small = sequenceParameterSet(width: 64, height: 64, cropRight: 0, cropBottom: 0)
        let large = sequenceParameterSet(width: 6000, height: 6000, cropRight: 0, cropBottom: 0)
        let configuration = hvcC(small)
        let data = unit([0x26, 0x01, 0xAF]) + unit(large)   // a slice, then a second SPS
        let file = configuration + data
        var units = 0
        let sizes = try file.withUnsafeBytes { raw throws(ImageError) in
            try HEIFCodedSize.hevc(configuration: 0..<configuration.count, data: configuration.count..<file.count,
                                   in: ByteReader(bytes: raw), units: &units)
        }
        XCTAssertEqual(sizes.map { [$0.width, $0.height] }, [[64, 64], [6000, 6000]])
        XCTAssertEqual(units, 3)

        let many = configuration + [UInt8](repeating: 0, count: 4 * (HEIFCodedSize.maximumUnits + 1))   // empty units
        units = 0
        XCTAssertThrowsError(try many.withUnsafeBytes { raw throws(ImageError) in
            try HEIFCodedSize.hevc(configuration: 0..<configuration.count, data: configuration.count..<many.count,
                                   in: ByteReader(bytes: raw), units: &units)
        }) { error in
            XCTAssertEqual(error as? ImageError, .corrupt(reason: "HEIF items hold more than 16384 NAL units"))
        }
    }

    func testAV1SequenceHeaderSizeIsReadPastTimingAndOperatingPoints() {
        var bits = BitWriter()
        bits.write(0, 3); bits.write(0, 1); bits.write(0, 1)   // profile, still_picture, reduced header off
        bits.write(1, 1)                                        // timing_info_present_flag
        bits.write(1, 32); bits.write(30, 32); bits.write(1, 1); bits.exponentialGolomb(0)
        bits.write(1, 1)                                        // decoder_model_info_present_flag
        bits.write(9, 5); bits.write(1, 32); bits.write(4, 5); bits.write(4, 5)
        bits.write(1, 1)                                        // initial_display_delay_present_flag
        bits.write(1, 5)                                        // two operating points
        for level in [8, 2] {
            bits.write(0, 12); bits.write(level, 5)
            if level > 7 { bits.write(1, 1) }
            bits.write(1, 1); bits.write(0, 10); bits.write(0, 10); bits.write(0, 1)   // decoder model for it
            bits.write(1, 1); bits.write(3, 4)                                           // display delay
        }
        bits.write(15, 4); bits.write(12, 4); bits.write(7999, 16); bits.write(5999, 13)
        var reader = HEIFBitReader(bits.bytes)
        XCTAssertEqual(HEIFCodedSize.parseSequenceHeader(&reader),
                       HEIFCodedSize(width: 8000, height: 6000, croppedWidth: 8000, croppedHeight: 6000))
        let size = HEIFCodedSize(width: 8000, height: 6000, croppedWidth: 8000, croppedHeight: 6000)
        XCTAssertTrue(size.agrees(withWidth: 7996, height: 5999, isAV1: true), "within one 8-pixel block")
        XCTAssertFalse(size.agrees(withWidth: 7992, height: 6000, isAV1: true))
        XCTAssertFalse(size.agrees(withWidth: 8001, height: 6000, isAV1: true), "a frame is never larger than its sequence")
    }
}

/// Writes fields most significant bit first, as HEVC and AV1 headers are laid out.
private struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private var used = 8

    mutating func write(_ value: Int, _ count: Int) {
        for shift in stride(from: count - 1, through: 0, by: -1) {
            if used == 8 { bytes.append(0); used = 0 }
            bytes[bytes.count - 1] |= UInt8((value >> shift) & 1) << (7 - used)
            used += 1
        }
    }

    mutating func exponentialGolomb(_ value: Int) {
        let coded = value + 1
        let length = Int.bitWidth - coded.leadingZeroBitCount
        write(0, length - 1)
        write(coded, length)
    }
}
