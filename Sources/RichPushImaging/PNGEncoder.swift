import CRichPushImage
import Foundation
import RichPushCore

/// libpng encoding of RGB/RGBA pixels: zlib level 6, adaptive filters, iCCP as the only metadata.
enum PNGEncoder {
    static func encode(_ image: PixelBuffer, iccProfile: [UInt8]?, budget: WorkBudget) throws(ImageError) -> Data {
        guard let encoder = richpush_png_encoder_create() else { throw .encodeFailed(reason: "PNG encoder could not be created") }
        defer { richpush_png_encoder_destroy(encoder) }
        func failure() -> ImageError { .encodeFailed(reason: "PNG: " + String(cString: richpush_png_encoder_message(encoder))) }

        let profile = iccProfile ?? []
        let started = profile.withUnsafeBufferPointer { profile in
            richpush_png_encoder_start(encoder, Int32(image.width), Int32(image.height), Int32(image.channels),
                                       profile.baseAddress, UInt32(profile.count))
        }
        guard started == 0 else { throw failure() }
        let wroteAll = try image.writeRows(inBandsOf: WorkBudget.bandRows, budget: budget) { rows, count in
            richpush_png_encoder_write_rows(encoder, rows, count)
        }
        guard wroteAll else { throw failure() }
        var output: UnsafePointer<UInt8>?
        var length = 0
        guard richpush_png_encoder_finish(encoder, &output, &length) == 0, let output else { throw failure() }
        return Data(bytes: output, count: length)
    }
}
