import CRichPushImage
import Foundation
import Glibc
import RichPushCore

/// libjpeg-turbo decoding to RGB, with DCT-domain shrink-on-load and row-band deadline checks.
enum JPEGDecoder {
    /// libjpeg's working memory cap: enough for a 40 MP progressive coefficient buffer, no more.
    static let maximumMemory = 320 * 1024 * 1024
    /// Progressive scan cap against scan-flood files.
    static let maximumScans = 500

    /// The output size for `scaleNumerator`/8, as libjpeg computes it (ceiling).
    static func scaledSize(_ size: Int, numerator: Int) -> Int { (size * numerator + 7) / 8 }

    /// Chooses the smallest power-of-two DCT scale (8/8, 4/8, 2/8, 1/8) that keeps ~2x headroom over `target`
    /// pixels on both axes, or lands exactly on it. Power-of-two scales use libjpeg-turbo's SIMD IDCTs.
    static func scaleNumerator(width: Int, height: Int, targetWidth: Int, targetHeight: Int) -> Int {
        for numerator in [1, 2, 4] {
            let scaledWidth = scaledSize(width, numerator: numerator)
            let scaledHeight = scaledSize(height, numerator: numerator)
            let exact = scaledWidth == targetWidth && scaledHeight >= targetHeight
                || scaledHeight == targetHeight && scaledWidth >= targetWidth
            // 1.9 rather than 2: a 4032-wide photo to 1038 is 1.94x at 1/2 scale, plenty for Lanczos3.
            let headroom = Double(scaledWidth) >= Double(targetWidth) * 1.9 && Double(scaledHeight) >= Double(targetHeight) * 1.9
            if exact || headroom { return numerator }
        }
        return 8
    }

    static func decode(_ bytes: Data, scaleNumerator: Int = 8, budget: WorkBudget) throws(ImageError) -> DecodedImage {
        // The header walk names 12-bit and lossless files clearly; libjpeg would only say "bad precision".
        _ = try bytes.withUnsafeBytes { raw in Result { () throws(ImageError) in try JPEGHeader.probe(ByteReader(bytes: raw)) } }.get()
        let stopCheck = LibraryStopCheck(budget)
        let result: Result<DecodedImage, ImageError> = bytes.withUnsafeBytes { raw in
            Result { () throws(ImageError) -> DecodedImage in
                guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self),
                      let decoder = richpush_jpeg_decoder_create(base, raw.count, maximumMemory, Int32(maximumScans)) else {
                    throw .corrupt(reason: "JPEG decoder could not be created")
                }
                defer { richpush_jpeg_decoder_destroy(decoder) }
                return try decode(decoder, scaleNumerator: scaleNumerator, stopCheck: stopCheck)
            }
        }
        withExtendedLifetime(stopCheck) {}   // the decoder held its address until destroyed
        return try result.get()
    }

    private static func failure(_ decoder: OpaquePointer, _ code: Int32, _ stopCheck: LibraryStopCheck) -> ImageError {
        if code == -2 { return stopCheck.stopReason }
        return .corrupt(reason: "JPEG: " + String(cString: richpush_jpeg_decoder_message(decoder)))
    }

    private static func decode(_ decoder: OpaquePointer, scaleNumerator: Int, stopCheck: LibraryStopCheck) throws(ImageError) -> DecodedImage {
        let budget = stopCheck.budget
        var header = richpush_jpeg_header()
        var status = richpush_jpeg_read_header(decoder, &header)
        guard status == 0 else { throw failure(decoder, status, stopCheck) }
        guard header.data_precision == 8 else { throw .unsupportedVariant("\(header.data_precision)-bit JPEG (only 8-bit is supported)") }

        var profilePointer: UnsafeMutablePointer<UInt8>?
        var profileLength: UInt32 = 0
        var iccProfile: [UInt8]?
        if richpush_jpeg_read_icc(decoder, &profilePointer, &profileLength) == 0, let profilePointer {
            iccProfile = ICCProfile.keepIfRGB(Array(UnsafeBufferPointer(start: profilePointer, count: Int(profileLength))))
            free(profilePointer)
        }

        let isCMYK = header.color_space == Int32(JCS_CMYK.rawValue) || header.color_space == Int32(JCS_YCCK.rawValue)
        let outputSpace = isCMYK ? JCS_CMYK : JCS_EXT_RGB
        var width: Int32 = 0, height: Int32 = 0, components: Int32 = 0
        try budget.check()
        // With DCT scaling a Lanczos pass always follows, which hides the fast IDCT's small error (Pillow's draft
        // mode does the same).
        status = richpush_jpeg_start(decoder, Int32(scaleNumerator), Int32(outputSpace.rawValue), scaleNumerator < 8 ? 1 : 0,
                                     LibraryStopCheck.callback, stopCheck.context, &width, &height, &components)
        guard status == 0 else { throw failure(decoder, status, stopCheck) }
        guard width > 0, height > 0, components == (isCMYK ? 4 : 3) else { throw .corrupt(reason: "JPEG output has no pixels") }

        var output = PixelBuffer(width: Int(width), height: Int(height), channels: 3)
        let rowBytes = output.rowBytes
        let band = WorkBudget.bandRows
        var cmykBand = isCMYK ? [UInt8](repeating: 0, count: Int(width) * 4 * band) : []
        // Adobe writes CMYK inverted (0 = full ink); plain CMYK JPEGs are rare but not inverted.
        let inverted = header.saw_adobe_marker != 0
        var row = 0
        while row < Int(height) {
            try budget.check()
            let count = min(band, Int(height) - row)
            let read: Int32 = output.pixels.withUnsafeMutableBufferPointer { pixels in
                cmykBand.withUnsafeMutableBufferPointer { cmyk in
                    var rows = [UnsafeMutablePointer<UInt8>?](repeating: nil, count: count)
                    for index in 0..<count {
                        rows[index] = isCMYK ? cmyk.baseAddress! + index * Int(width) * 4
                                             : pixels.baseAddress! + (row + index) * rowBytes
                    }
                    return richpush_jpeg_read_rows(decoder, &rows, Int32(count))
                }
            }
            guard read > 0 else { throw read < 0 ? failure(decoder, read, stopCheck) : .corrupt(reason: "JPEG: no scanlines returned") }
            if isCMYK {
                convertCMYK(cmykBand, rows: Int(read), width: Int(width), inverted: inverted, into: &output.pixels, at: row * rowBytes)
            }
            row += Int(read)
        }
        _ = richpush_jpeg_finish(decoder)
        return DecodedImage(pixels: output, iccProfile: iccProfile, warnings: keptWarnings(decoder))
    }

    /// libjpeg's warnings that left the pixels whole (bytes between segments, a bad ICC marker...), as one note
    /// for the render's warnings; those that lose pixels (truncated or damaged scan data) already failed the decode.
    private static func keptWarnings(_ decoder: OpaquePointer) -> [String] {
        var first: UnsafePointer<CChar>?
        let count = richpush_jpeg_decoder_warnings(decoder, &first)
        guard count > 0, let first else { return [] }
        let more = count > 1 ? " (and \(count - 1) more)" : ""
        return ["JPEG: \(String(cString: first))\(more); the image data is complete, so it was rendered"]
    }

    /// Naive CMYK → RGB (the CMYK profile is dropped, as iOS would have nothing to convert it with).
    private static func convertCMYK(_ cmyk: [UInt8], rows: Int, width: Int, inverted: Bool, into rgb: inout [UInt8], at start: Int) {
        cmyk.withUnsafeBufferPointer { source in
            rgb.withUnsafeMutableBufferPointer { destination in
                for pixel in 0..<(rows * width) {
                    var values = (UInt32(source[pixel * 4]), UInt32(source[pixel * 4 + 1]), UInt32(source[pixel * 4 + 2]),
                                  UInt32(source[pixel * 4 + 3]))
                    if !inverted { values = (255 - values.0, 255 - values.1, 255 - values.2, 255 - values.3) }
                    // Now 255 = no ink: colour = (255 - ink) * (255 - black) / 255.
                    destination[start + pixel * 3] = UInt8((values.0 * values.3 + 127) / 255)
                    destination[start + pixel * 3 + 1] = UInt8((values.1 * values.3 + 127) / 255)
                    destination[start + pixel * 3 + 2] = UInt8((values.2 * values.3 + 127) / 255)
                }
            }
        }
    }
}
