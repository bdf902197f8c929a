import CRichPushImage
import Foundation
import Glibc

/// libpng decoding to 8-bit RGB or RGBA (palette, tRNS, grey and 16-bit expanded/scaled), Adam7 included.
enum PNGDecoder {
    /// Ancillary chunk count and per-chunk allocation caps against chunk floods and huge zTXt/iCCP bombs.
    static let chunkCacheMaximum: Int32 = 256
    static let chunkMallocMaximum = 4 * 1024 * 1024

    /// Walks the chunk list before libpng sees it. libpng allocates a text chunk's declared length before reading
    /// it, so a 228-byte file claiming a 1 GB tEXt chunk made it ask for 1 GB (found by fuzzing). A chunk longer
    /// than what is left of the file, or an ancillary chunk over `chunkMallocMaximum`, is corrupt; costs one pass
    /// over the chunk headers.
    static func checkChunkLengths(_ bytes: Data) throws(ImageError) {
        var offset = bytes.startIndex + 8
        while offset + 8 <= bytes.endIndex {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            let available = bytes.endIndex - offset - 12
            if length > available {
                throw .corrupt(reason: "PNG chunk \(type) claims \(length) bytes but only \(max(0, available)) remain")
            }
            if type != "IDAT" && length > chunkMallocMaximum {
                throw .corrupt(reason: "PNG chunk \(type) of \(length) bytes is over the \(chunkMallocMaximum)-byte limit")
            }
            if type == "IEND" { return }
            offset += 12 + length
        }
    }

    /// `truncatingSixteenBit` reproduces decoders that keep the high byte (the conformance answers for 16-bit
    /// colour files were made that way); rendering always rounds.
    static func decode(_ bytes: Data, limits: ImageLimits, truncatingSixteenBit: Bool = false,
                       budget: WorkBudget) throws(ImageError) -> DecodedImage {
        try checkChunkLengths(bytes)
        let result: Result<DecodedImage, ImageError> = bytes.withUnsafeBytes { raw in
            Result { () throws(ImageError) -> DecodedImage in
                guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self),
                      let decoder = richpush_png_decoder_create(base, raw.count, Int32(clamping: limits.maximumSide),
                                                                Int32(clamping: limits.maximumSide),
                                                                chunkCacheMaximum, chunkMallocMaximum) else {
                    throw .corrupt(reason: "PNG decoder could not be created")
                }
                defer { richpush_png_decoder_destroy(decoder) }
                return try decode(decoder, limits: limits, truncatingSixteenBit: truncatingSixteenBit, budget: budget)
            }
        }
        return try result.get()
    }

    private static func failure(_ decoder: OpaquePointer) -> ImageError {
        .corrupt(reason: "PNG: " + String(cString: richpush_png_decoder_message(decoder)))
    }

    private static func decode(_ decoder: OpaquePointer, limits: ImageLimits, truncatingSixteenBit: Bool,
                               budget: WorkBudget) throws(ImageError) -> DecodedImage {
        var header = richpush_png_header()
        guard richpush_png_read_info(decoder, &header, truncatingSixteenBit ? 1 : 0) == 0 else { throw failure(decoder) }
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

        var output = PixelBuffer(width: width, height: height, channels: channels)
        let rowBytes = output.rowBytes
        // Band of 16 rows of a 16k RGBA image is ~1 MB of inflate work: a few ms.
        let band = WorkBudget.bandRows
        for _ in 0..<max(1, Int(header.passes)) {
            var row = 0
            while row < height {
                try budget.check()
                let count = min(band, height - row)
                let status: Int32 = output.pixels.withUnsafeMutableBufferPointer { pixels in
                    var rows = [UnsafeMutablePointer<UInt8>?](repeating: nil, count: count)
                    for index in 0..<count { rows[index] = pixels.baseAddress! + (row + index) * rowBytes }
                    return richpush_png_read_rows(decoder, &rows, Int32(count))
                }
                guard status >= 0 else { throw failure(decoder) }
                row += count
            }
        }
        // Reading the end checks the trailing chunks' CRCs and that the stream really ends.
        guard richpush_png_finish(decoder) == 0 else { throw failure(decoder) }
        return DecodedImage(pixels: output, iccProfile: iccProfile)
    }
}
