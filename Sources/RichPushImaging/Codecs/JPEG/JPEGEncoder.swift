import CRichPushImage
import Foundation

/// libjpeg-turbo encoding of RGB pixels, or of a `JPEGTransform`'s coefficients: 4:2:0 (or 4:4:4), optimized
/// Huffman tables, optional progressive, ICC only.
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
        return try encoding { encoder throws(ImageError) in
            let profile = iccProfile ?? []
            let tables = quantization.tables ?? []
            let started = profile.withUnsafeBufferPointer { profile in
                tables.withUnsafeBufferPointer { tables in
                    richpush_jpeg_encoder_start(
                        encoder, Int32(image.width), Int32(image.height), Int32(min(100, max(1, quality))), progressive ? 1 : 0,
                        chroma == .full ? 1 : 0, tables.isEmpty ? nil : tables.baseAddress, profile.baseAddress, UInt32(profile.count))
                }
            }
            guard started == 0 else { return false }
            return try image.writeRows(inBandsOf: WorkBudget.bandRows * 4, budget: budget) { rows, count in
                richpush_jpeg_encoder_write_rows(encoder, rows, count)
            }
        }
    }

    /// Encodes a `JPEGTransform` (the quality search's encodes that deringe or trellis-quantise): has it quantise
    /// with `quantization`'s tables at `quality`, deringing the blocks it was made to dering, by `TrellisQuantizer`
    /// with `trellis` (on libjpeg's standard AC code lengths) or else to the nearest, and libjpeg entropy-code the
    /// coefficients (optimised Huffman tables, optionally progressive). Cost: a DCT per block, as libjpeg's own
    /// encode does, the trellis, and libjpeg's Huffman passes; no colour conversion.
    static func encode(_ transform: JPEGTransform, quality: Int, progressive: Bool, quantization: JPEGQuantization,
                       trellis: Bool, iccProfile: [UInt8]?, budget: WorkBudget) throws(ImageError) -> Data {
        try encoding { encoder throws(ImageError) in
            let tables = quantization.tables ?? []
            var steps = [UInt16](repeating: 1, count: 128), codeLengths = [UInt8](repeating: 0, count: 512)
            let began = tables.withUnsafeBufferPointer { tables in
                richpush_jpeg_encoder_begin_coefficients(
                    encoder, Int32(transform.width), Int32(transform.height), Int32(min(100, max(1, quality))),
                    progressive ? 1 : 0, transform.chroma == .full ? 1 : 0, tables.isEmpty ? nil : tables.baseAddress,
                    &steps, &codeLengths)
            }
            guard began == 0 else { return false }
            let planes = try transform.quantized(steps, trellisCodeLengths: trellis ? codeLengths : nil, budget: budget)
            let profile = iccProfile ?? []
            let wrote = planes[0].withUnsafeBufferPointer { luma in
                planes[1].withUnsafeBufferPointer { blue in
                    planes[2].withUnsafeBufferPointer { red in
                        let pointers: [UnsafePointer<Int16>?] = [luma.baseAddress, blue.baseAddress, red.baseAddress]
                        return profile.withUnsafeBufferPointer { profile in
                            richpush_jpeg_encoder_write_coefficients(encoder, pointers, profile.baseAddress, UInt32(profile.count))
                        }
                    }
                }
            }
            return wrote == 0
        }
    }

    /// Runs `write` on a new libjpeg encoder, then finishes it and copies the file out; `write` returns false when
    /// libjpeg failed, whose message becomes the error. The encoder is destroyed either way.
    private static func encoding(_ write: (OpaquePointer) throws(ImageError) -> Bool) throws(ImageError) -> Data {
        guard let encoder = richpush_jpeg_encoder_create() else { throw .encodeFailed(reason: "JPEG encoder could not be created") }
        defer { richpush_jpeg_encoder_destroy(encoder) }
        func failure() -> ImageError { .encodeFailed(reason: "JPEG: " + String(cString: richpush_jpeg_encoder_message(encoder))) }
        guard try write(encoder) else { throw failure() }
        var output: UnsafePointer<UInt8>?
        var length = 0
        guard richpush_jpeg_encoder_finish(encoder, &output, &length) == 0, let output else { throw failure() }
        return Data(bytes: output, count: length)
    }
}
