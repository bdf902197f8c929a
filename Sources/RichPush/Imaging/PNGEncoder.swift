import CRichPushImage
import Foundation

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
        var row = 0
        let band = WorkBudget.bandRows
        while row < image.height {
            try budget.check()
            let count = min(band, image.height - row)
            // The libraries take non-const row pointers but only read them: no copy of the pixels is needed.
            let written = image.pixels.withUnsafeBufferPointer { pixels in
                let base = UnsafeMutablePointer(mutating: pixels.baseAddress!)
                var rows = (0..<count).map { Optional(base + (row + $0) * image.rowBytes) }
                return richpush_png_encoder_write_rows(encoder, &rows, Int32(count))
            }
            guard written == Int32(count) else { throw failure() }
            row += count
        }
        var output: UnsafePointer<UInt8>?
        var length = 0
        guard richpush_png_encoder_finish(encoder, &output, &length) == 0, let output else { throw failure() }
        return Data(bytes: output, count: length)
    }
}
