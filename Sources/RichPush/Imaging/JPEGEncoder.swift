import CRichPushImage
import Foundation

/// libjpeg-turbo encoding of RGB pixels: 4:2:0, optimized Huffman tables, optional progressive, ICC only.
enum JPEGEncoder {
    static func encode(_ image: PixelBuffer, quality: Int, progressive: Bool, iccProfile: [UInt8]?,
                       budget: WorkBudget) throws(ImageError) -> Data {
        guard image.channels == 3 else { throw .encodeFailed(reason: "JPEG needs RGB pixels, got \(image.channels) channels") }
        guard let encoder = richpush_jpeg_encoder_create() else { throw .encodeFailed(reason: "JPEG encoder could not be created") }
        defer { richpush_jpeg_encoder_destroy(encoder) }
        func failure() -> ImageError { .encodeFailed(reason: "JPEG: " + String(cString: richpush_jpeg_encoder_message(encoder))) }

        let profile = iccProfile ?? []
        let started = profile.withUnsafeBufferPointer { profile in
            richpush_jpeg_encoder_start(encoder, Int32(image.width), Int32(image.height), Int32(min(100, max(1, quality))),
                                        progressive ? 1 : 0, profile.baseAddress, UInt32(profile.count))
        }
        guard started == 0 else { throw failure() }
        var row = 0
        let band = WorkBudget.bandRows * 4
        while row < image.height {
            try budget.check()
            let count = min(band, image.height - row)
            // The libraries take non-const row pointers but only read them: no copy of the pixels is needed.
            let written = image.pixels.withUnsafeBufferPointer { pixels in
                let base = UnsafeMutablePointer(mutating: pixels.baseAddress!)
                var rows = (0..<count).map { Optional(base + (row + $0) * image.rowBytes) }
                return richpush_jpeg_encoder_write_rows(encoder, &rows, Int32(count))
            }
            guard written == Int32(count) else { throw failure() }
            row += count
        }
        var output: UnsafePointer<UInt8>?
        var length = 0
        guard richpush_jpeg_encoder_finish(encoder, &output, &length) == 0, let output else { throw failure() }
        return Data(bytes: output, count: length)
    }
}
