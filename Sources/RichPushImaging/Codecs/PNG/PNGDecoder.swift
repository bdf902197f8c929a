import CDeflate
import CPNG
import CRichPushImage
import Foundation
import Glibc
import RichPushCore

/// PNG decoding to 8-bit RGB or RGBA (palette, tRNS, grey and 16-bit expanded/scaled), Adam7 included: libpng, or
/// for the common case the libdeflate fast path (`PNGInflatedRows`).
package enum PNGDecoder {
    /// Ancillary chunk count and per-chunk allocation caps against chunk floods and huge zTXt/iCCP bombs.
    static let chunkCacheMaximum: Int32 = 256
    static let chunkMallocMaximum = 4 * 1024 * 1024

    /// Walks the chunk list before libpng sees it. libpng allocates a text chunk's declared length before reading
    /// it, so a 228-byte file claiming a 1 GB tEXt chunk made it ask for 1 GB (found by fuzzing). A chunk longer
    /// than what is left of the file, an ancillary chunk over `chunkMallocMaximum`, a wrong CRC or a missing IEND
    /// is corrupt. libpng stops reading after the last row (see `decode`), so this walk is what checks the
    /// chunks after it. Costs one CRC-32 pass over the file (zlib's, a few ms for 10 MB) and inflates nothing.
    static func checkChunks(_ bytes: Data) throws(ImageError) -> PNGChunkList {
        let result: Result<PNGChunkList, ImageError> = bytes.withUnsafeBytes { raw in
            Result { () throws(ImageError) in try checkChunks(ByteReader(bytes: raw)) }
        }
        return try result.get()
    }

    private static func checkChunks(_ reader: ByteReader) throws(ImageError) -> PNGChunkList {
        var chunks = PNGChunkList()
        let end = try walkChunks(reader.bytes) { (type, data) throws(ImageError) -> Bool in
            if type != "IDAT" && data.count > chunkMallocMaximum {
                throw .corrupt(reason: "PNG chunk \(type) of \(data.count) bytes is over the \(chunkMallocMaximum)-byte limit")
            }
            let typeAndData = UnsafeRawBufferPointer(rebasing: reader.bytes[(data.lowerBound - 4)..<data.upperBound])
            if reader.uint32BigEndian(data.upperBound) != Int(libdeflate_crc32(0, typeAndData.baseAddress, typeAndData.count)) {
                throw .corrupt(reason: "PNG chunk \(type) has a wrong CRC")
            }
            chunks.append(type: type, data: data)
            return type != "IEND"
        }
        switch end {
        case .stopped: return chunks
        case .ranOut: throw .corrupt(reason: "PNG ends without an IEND chunk")
        case .overlong(let type, let length, let available):
            throw .corrupt(reason: "PNG chunk \(type) claims \(length) bytes but only \(max(0, available)) remain")
        }
    }

    /// How a walk over a PNG's chunks ended.
    package enum ChunkWalkEnd {
        /// The visitor asked to stop.
        case stopped
        /// Fewer bytes remain than a chunk's length and type.
        case ranOut
        /// A chunk claims more bytes than remain after it.
        case overlong(type: String, length: Int, available: Int)
    }

    /// Visits each chunk after the signature, in order (its type and the range of its data, with the CRC right
    /// after it), until `visit` returns false or a chunk does not fit in what is left. It reads lengths and types
    /// only; the CRCs and what a chunk may hold are for the visitor to check. The one walk behind `checkChunks`
    /// and the fuzz target's CRC repair.
    package static func walkChunks(_ bytes: UnsafeRawBufferPointer,
                           _ visit: (String, Range<Int>) throws(ImageError) -> Bool) throws(ImageError) -> ChunkWalkEnd {
        let reader = ByteReader(bytes: bytes)
        var offset = 8
        while let length = reader.uint32BigEndian(offset), reader.count - offset >= 8 {
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            let available = reader.count - offset - 12
            if length > available { return .overlong(type: type, length: length, available: available) }
            guard try visit(type, (offset + 8)..<(offset + 8 + length)) else { return .stopped }
            offset += 12 + length
        }
        return .ranOut
    }

    /// `truncatingSixteenBit` reproduces decoders that keep the high byte (the conformance answers for 16-bit
    /// colour files were made that way); rendering always rounds. With `shrinkingBy` over 1 a non-interlaced PNG is
    /// box-shrunk band by band as it is decoded (see `decodeShrunk`), an interlaced one pass by pass into running
    /// sums (see `decodeInterlacedShrunk`). Otherwise, with a `rowResize` (the render plan's: it needs no box
    /// pre-shrink and changes the size), a non-interlaced PNG's rows are resized as they are decoded (see
    /// `decodeResized`), an interlaced one's as its last pass arrives (see `decodeInterlacedResized`), so the result
    /// is already at its output size.
    ///
    /// The common case (non-interlaced 8-bit grey, grey+alpha, RGB or RGBA, or a palette of up to 8 bits, with only
    /// harmless chunks) takes the fast path (`PNGInflatedRows`) unless `allowsFastPath` is false; both paths give
    /// the same pixels and the same verdict.
    package static func decode(_ bytes: Data, limits: ImageLimits, truncatingSixteenBit: Bool = false, shrinkingBy reduction: Int = 1,
                       resizingRowsWith rowResize: ResizePlan? = nil, allowsFastPath: Bool = true,
                       budget: WorkBudget) throws(ImageError) -> DecodedImage {
        let chunks = try checkChunks(bytes)
        try budget.check()
        if allowsFastPath, let rows = PNGInflatedRows(bytes, chunks: chunks, limits: limits) {
            return try decodeRows(.inflated(rows), width: rows.width, height: rows.height, channels: rows.channels,
                                  reduction: reduction, rowResize: rowResize, iccProfile: nil, budget: budget)
        }
        let stopCheck = LibraryStopCheck(budget)
        let result: Result<DecodedImage, ImageError> = bytes.withUnsafeBytes { raw in
            Result { () throws(ImageError) -> DecodedImage in
                guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self),
                      let decoder = richpush_png_decoder_create(base, raw.count, Int32(clamping: limits.maximumSide),
                                                                Int32(clamping: limits.maximumSide),
                                                                chunkCacheMaximum, chunkMallocMaximum,
                                                                LibraryStopCheck.callback, stopCheck.context) else {
                    throw .corrupt(reason: "PNG decoder could not be created")
                }
                defer { richpush_png_decoder_destroy(decoder) }
                return try decode(decoder, limits: limits, truncatingSixteenBit: truncatingSixteenBit, reduction: reduction,
                                  rowResize: rowResize, stopCheck: stopCheck)
            }
        }
        withExtendedLifetime(stopCheck) {}   // the decoder held its address until destroyed
        return try result.get()
    }

    static func failure(_ decoder: OpaquePointer, _ status: Int32, _ stopCheck: LibraryStopCheck) -> ImageError {
        if status == -2 { return stopCheck.stopReason }
        return .corrupt(reason: "PNG: " + String(cString: richpush_png_decoder_message(decoder)))
    }

    private static func decode(_ decoder: OpaquePointer, limits: ImageLimits, truncatingSixteenBit: Bool, reduction: Int,
                               rowResize: ResizePlan?, stopCheck: LibraryStopCheck) throws(ImageError) -> DecodedImage {
        let budget = stopCheck.budget
        var header = richpush_png_header()
        let status = richpush_png_read_info(decoder, &header, truncatingSixteenBit ? 1 : 0)
        guard status == 0 else { throw failure(decoder, status, stopCheck) }
        let width = Int(header.width), height = Int(header.height), channels = Int(header.channels)
        try limits.check(width: width, height: height)
        guard channels == 3 || channels == 4, header.row_bytes == width * channels else {
            throw .corrupt(reason: "PNG: unexpected layout after transforms (\(channels) channels)")
        }
        var iccProfile: [UInt8]?
        var profilePointer: UnsafeMutablePointer<UInt8>?
        var profileLength: UInt32 = 0
        if header.has_icc != 0, richpush_png_read_icc(decoder, &profilePointer, &profileLength) == 0, let profilePointer {
            iccProfile = ICCProfile.keepIfRGB(Array(UnsafeBufferPointer(start: profilePointer, count: Int(profileLength))))
            free(profilePointer)
        }

        // No png_read_end after the rows: the chunks after the image were checked by `checkChunks`, and finishing
        // the zlib stream would inflate whatever follows the last row.
        if reduction > 1 && header.passes == 7 {
            return try decodeInterlacedShrunk(decoder, width: width, height: height, channels: channels, by: reduction,
                                              iccProfile: iccProfile, stopCheck: stopCheck)
        }
        if header.interlaced == 0 {
            return try decodeRows(.libpng(decoder, stopCheck), width: width, height: height, channels: channels,
                                  reduction: reduction, rowResize: rowResize, iccProfile: iccProfile, budget: budget)
        }
        if header.passes == 7, let rowResize {
            return try decodeInterlacedResized(decoder, width: width, height: height, channels: channels, plan: rowResize,
                                               iccProfile: iccProfile, stopCheck: stopCheck)
        }
        // Interlaced at full size: libpng fills every row once per pass.
        var output = PixelBuffer(width: width, height: height, channels: channels)
        for _ in 0..<max(1, Int(header.passes)) {
            var row = 0
            while row < height {
                try budget.check()
                let count = min(WorkBudget.bandRows, height - row)
                try readRows(decoder, into: &output, at: row, count: count, stopCheck: stopCheck)
                row += count
            }
        }
        return DecodedImage(pixels: output, iccProfile: iccProfile)
    }

    /// A non-interlaced image's rows, in bands between budget checks: whole, or box-shrunk or resized as they arrive.
    private static func decodeRows(_ source: PNGRowSource, width: Int, height: Int, channels: Int, reduction: Int,
                                   rowResize: ResizePlan?, iccProfile: [UInt8]?, budget: WorkBudget) throws(ImageError) -> DecodedImage {
        if reduction > 1 {
            return try decodeShrunk(source, width: width, height: height, channels: channels, by: reduction,
                                    iccProfile: iccProfile, budget: budget)
        }
        if let rowResize {
            return try decodeResized(source, width: width, height: height, channels: channels, plan: rowResize,
                                     iccProfile: iccProfile, budget: budget)
        }
        // Band of 16 rows of a 16k RGBA image is ~1 MB of inflate work: a few ms.
        var output = PixelBuffer(width: width, height: height, channels: channels)
        var row = 0
        while row < height {
            try budget.check()
            let count = min(WorkBudget.bandRows, height - row)
            try source.read(into: &output, at: row, count: count)
            row += count
        }
        return DecodedImage(pixels: output, iccProfile: iccProfile)
    }

    /// Reads the next `count` rows of the image (or of the current pass) into `buffer`'s rows from `firstRow`.
    static func readRows(_ decoder: OpaquePointer, into buffer: inout PixelBuffer, at firstRow: Int, count: Int,
                         stopCheck: LibraryStopCheck) throws(ImageError) {
        let rowBytes = buffer.rowBytes
        try buffer.pixels.withUnsafeMutableBufferPointer { (pixels) throws(ImageError) in
            try readRows(decoder, into: pixels.baseAddress! + firstRow * rowBytes, rowBytes: rowBytes, count: count,
                         stopCheck: stopCheck)
        }
    }

    /// Reads the next `count` rows into `rows`, `rowBytes` apart.
    static func readRows(_ decoder: OpaquePointer, into rows: UnsafeMutablePointer<UInt8>, rowBytes: Int, count: Int,
                         stopCheck: LibraryStopCheck) throws(ImageError) {
        var pointers = (0..<count).map { Optional(rows + $0 * rowBytes) }
        let status = richpush_png_read_rows(decoder, &pointers, Int32(count))
        guard status >= 0 else { throw failure(decoder, status, stopCheck) }
    }
}
