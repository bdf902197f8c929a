import CRichPushImage
import Foundation

/// libjpeg-turbo encoding of RGB pixels: 4:2:0 (or 4:4:4), optimized Huffman tables, optional progressive, ICC only.
enum JPEGEncoder {
    /// The resolution of the colour (Cb, Cr) planes.
    enum Chroma: String, Sendable {
        /// Half in both directions (4:2:0): the usual choice for photographs, half the colour data.
        case halved = "4:2:0"
        /// Full (4:4:4): sharp coloured edges, as in text on colour, which 4:2:0 smears at any quality.
        case full = "4:4:4"
    }

    static func encode(_ image: PixelBuffer, quality: Int, progressive: Bool, chroma: Chroma = .halved,
                       quantization: JPEGQuantization = .standard, iccProfile: [UInt8]?,
                       budget: WorkBudget) throws(ImageError) -> Data {
        guard image.channels == 3 else { throw .encodeFailed(reason: "JPEG needs RGB pixels, got \(image.channels) channels") }
        guard let encoder = richpush_jpeg_encoder_create() else { throw .encodeFailed(reason: "JPEG encoder could not be created") }
        defer { richpush_jpeg_encoder_destroy(encoder) }
        func failure() -> ImageError { .encodeFailed(reason: "JPEG: " + String(cString: richpush_jpeg_encoder_message(encoder))) }

        let profile = iccProfile ?? []
        let tables = quantization.tables ?? []
        let started = profile.withUnsafeBufferPointer { profile in
            tables.withUnsafeBufferPointer { tables in
                richpush_jpeg_encoder_start(
                    encoder, Int32(image.width), Int32(image.height), Int32(min(100, max(1, quality))), progressive ? 1 : 0,
                    chroma == .full ? 1 : 0, tables.isEmpty ? nil : tables.baseAddress, profile.baseAddress, UInt32(profile.count))
            }
        }
        guard started == 0 else { throw failure() }
        let wroteAll = try image.writeRows(inBandsOf: WorkBudget.bandRows * 4, budget: budget) { rows, count in
            richpush_jpeg_encoder_write_rows(encoder, rows, count)
        }
        guard wroteAll else { throw failure() }
        var output: UnsafePointer<UInt8>?
        var length = 0
        guard richpush_jpeg_encoder_finish(encoder, &output, &length) == 0, let output else { throw failure() }
        return Data(bytes: output, count: length)
    }
}
