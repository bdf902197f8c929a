import CRichPushImage
import Foundation
import Glibc
import RichPushCore

/// libjpeg-turbo decoding to RGB, with DCT-domain shrink-on-load and row-band deadline checks.
enum JPEGDecoder {
    /// libjpeg's working memory cap: enough for a 40 MP progressive coefficient buffer, no more.
    static let maximumMemory = 320 * 1024 * 1024

    /// The output size for `scaleNumerator`/8, as libjpeg computes it (ceiling).
    static func scaledSize(_ size: Int, numerator: Int) -> Int { (size * numerator + 7) / 8 }

    /// The DCT scales `scaleNumerator` may pick, smallest first. 1/8, 2/8 and 4/8 run libjpeg-turbo's SIMD
    /// IDCTs; 5/8 runs its C IDCT, yet decode plus the smaller resize still beats 8/8 plus the larger one.
    /// 3/8 and 7/8 are left out as slower than 4/8 and 8/8 with the larger resize, and 6/8 because the shipped
    /// JPEG of the 2 MP corpus file lost PSNR with it, where the image path keeps PSNR no worse than 8/8 gives
    /// (docs/benchmarks.md, "JPEG: DCT scale, IDCT and band-wise resize").
    static let scaleNumerators = [1, 2, 4, 5, 8]

    /// Chooses the smallest of `scaleNumerators` whose output (libjpeg's ceiling of size × M / 8) still covers
    /// `targetWidth`x`targetHeight`, so the resize after it only ever shrinks; 8 when none smaller does.
    static func scaleNumerator(width: Int, height: Int, targetWidth: Int, targetHeight: Int) -> Int {
        scaleNumerators.first { numerator in
            scaledSize(width, numerator: numerator) >= targetWidth && scaledSize(height, numerator: numerator) >= targetHeight
        } ?? 8
    }

    /// Decodes at `scaleNumerator`/8. With a `rowResize` (the render plan's `rowResize`: the resize in the scaled
    /// decode's pixels, which libjpeg produces at `scaledSize`) the rows are resized as they arrive
    /// (`StreamingResampler`), so the result is already at its output size and the scaled source never exists
    /// whole; without one the result is the whole scaled image.
    ///
    /// Cost: libjpeg's Huffman decoding of the whole file, IDCT and colour conversion at the scaled size, and with
    /// a plan the Lanczos3 resize; memory is the decoded image, or with a plan a window of rows plus the resize's
    /// intermediate.
    ///
    /// `checkingIntegrity: false` is for our own encoder's output (the quality search's candidates): the header walk
    /// and the seam check look for damage in files from elsewhere, and a coarse candidate must never be refused as
    /// a corrupt origin image; libjpeg's own errors still throw.
    static func decode(_ bytes: Data, scaleNumerator: Int = 8, resizingRowsWith rowResize: ResizePlan? = nil,
                       checkingIntegrity: Bool = true, budget: WorkBudget) throws(ImageError) -> DecodedImage {
        if checkingIntegrity {
            // The header walk names 12-bit and lossless files clearly; libjpeg would only say "bad precision".
            _ = try bytes.withUnsafeBytes { raw in Result { () throws(ImageError) in try JPEGHeader.probe(ByteReader(bytes: raw)) } }.get()
        }
        let stopCheck = LibraryStopCheck(budget)
        let result: Result<DecodedImage, ImageError> = bytes.withUnsafeBytes { raw in
            Result { () throws(ImageError) -> DecodedImage in
                guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self),
                      let decoder = richpush_jpeg_decoder_create(base, raw.count, maximumMemory, Int32(ImageLimits.maximumJPEGScans)) else {
                    throw .corrupt(reason: "JPEG decoder could not be created")
                }
                defer { richpush_jpeg_decoder_destroy(decoder) }
                return try decode(decoder, scaleNumerator: scaleNumerator, rowResize: rowResize, checkingSeams: checkingIntegrity,
                                  stopCheck: stopCheck)
            }
        }
        withExtendedLifetime(stopCheck) {}   // the decoder held its address until destroyed
        return try result.get()
    }

    private static func failure(_ decoder: OpaquePointer, _ code: Int32, _ stopCheck: LibraryStopCheck) -> ImageError {
        if code == -2 { return stopCheck.stopReason }
        return .corrupt(reason: "JPEG: " + String(cString: richpush_jpeg_decoder_message(decoder)))
    }

    private static func decode(_ decoder: OpaquePointer, scaleNumerator: Int, rowResize: ResizePlan?, checkingSeams: Bool,
                               stopCheck: LibraryStopCheck) throws(ImageError) -> DecodedImage {
        let budget = stopCheck.budget
        var header = richpush_jpeg_header()
        var status = richpush_jpeg_read_header(decoder, &header)
        guard status == 0 else { throw failure(decoder, status, stopCheck) }
        guard header.data_precision == 8 else { throw .unsupportedFormat(detected: "\(header.data_precision)-bit JPEG (only 8-bit is supported)") }

        var profilePointer: UnsafeMutablePointer<UInt8>?
        var profileLength: UInt32 = 0
        var iccProfile: [UInt8]?
        status = richpush_jpeg_read_icc(decoder, &profilePointer, &profileLength)
        guard status == 0 else { throw failure(decoder, status, stopCheck) }   // a damaged ICC marker
        if let profilePointer {
            iccProfile = ICCProfile.keepIfRGB(Array(UnsafeBufferPointer(start: profilePointer, count: Int(profileLength))))
            free(profilePointer)
        }

        let isCMYK = header.color_space == Int32(JCS_CMYK.rawValue) || header.color_space == Int32(JCS_YCCK.rawValue)
        let outputSpace = isCMYK ? JCS_CMYK : JCS_EXT_RGB
        var width: Int32 = 0, height: Int32 = 0, components: Int32 = 0
        try budget.check()
        status = richpush_jpeg_start(decoder, Int32(scaleNumerator), Int32(outputSpace.rawValue),
                                     LibraryStopCheck.callback, stopCheck.context, &width, &height, &components)
        guard status == 0 else { throw failure(decoder, status, stopCheck) }
        guard width > 0, height > 0, components == (isCMYK ? 4 : 3) else { throw .corrupt(reason: "JPEG output has no pixels") }

        let band = WorkBudget.bandRows
        var cmykBand = isCMYK ? [UInt8](repeating: 0, count: Int(width) * 4 * band) : []
        // Adobe writes CMYK inverted (0 = full ink); plain CMYK JPEGs are rare but not inverted.
        let inverted = header.saw_adobe_marker != 0
        let rowBytes = Int(width) * 3
        // An MCU is one block when the scan holds one component, else the largest sampling factors' worth.
        let interleaved = header.components > 1
        var seamCheck = checkingSeams ? JPEGSeamCheck(width: Int(width), height: Int(height), blockSize: scaleNumerator,
                                                     mcuBlocks: (interleaved ? Int(header.max_h_samp_factor) : 1,
                                                                 interleaved ? Int(header.max_v_samp_factor) : 1)) : nil
        /// Reads up to `count` rows as RGB into `destination`, one after another; returns how many it read.
        func readRows(into destination: UnsafeMutablePointer<UInt8>, count: Int) throws(ImageError) -> Int {
            try budget.check()
            let read: Int32 = cmykBand.withUnsafeMutableBufferPointer { cmyk in
                var rows = (0..<count).map { index in
                    Optional(isCMYK ? cmyk.baseAddress! + index * Int(width) * 4 : destination + index * rowBytes)
                }
                return richpush_jpeg_read_rows(decoder, &rows, Int32(count))
            }
            guard read > 0 else { throw read < 0 ? failure(decoder, read, stopCheck) : .corrupt(reason: "JPEG: no scanlines returned") }
            if isCMYK { convertCMYK(cmykBand, rows: Int(read), width: Int(width), inverted: inverted, into: destination) }
            seamCheck?.receive(destination, count: Int(read), rowBytes: rowBytes)
            return Int(read)
        }

        let pixels: PixelBuffer
        if let rowResize {
            var resampler = StreamingResampler(sourceWidth: Int(width), sourceHeight: Int(height), channels: 3,
                                               plan: rowResize, bandRows: WorkBudget.bandRows)
            var row = 0
            while row < Int(height) {
                // Every row is decoded, even below a crop, so damaged data anywhere still fails the decode.
                row += try resampler.receiveRows(upTo: min(band, Int(height) - row)) { (rows, count) throws(ImageError) -> Int in
                    try readRows(into: rows, count: count)
                }
            }
            pixels = try resampler.finish(budget: budget)
        } else {
            var output = PixelBuffer(width: Int(width), height: Int(height), channels: 3)
            var row = 0
            while row < Int(height) {
                let count = min(band, Int(height) - row)
                row += try output.pixels.withUnsafeMutableBufferPointer { (pixels) throws(ImageError) -> Int in
                    try readRows(into: pixels.baseAddress! + row * rowBytes, count: count)
                }
            }
            pixels = output
        }
        status = richpush_jpeg_finish(decoder)
        guard status == 0 else { throw failure(decoder, status, stopCheck) }
        if let seamCheck, seamCheck.isDamaged {
            let place = seamCheck.worstPlace
            throw .corrupt(reason: "JPEG: damaged scan data (a colour cast starts at MCU row \(place.row), column \(place.column))")
        }
        return DecodedImage(pixels: pixels, iccProfile: iccProfile, warnings: keptWarnings(decoder),
                            decodedSize: (Int(width), Int(height)))
    }

    /// libjpeg's warnings that left the pixels whole (an unknown JFIF revision), as one note for the render's
    /// warnings; every other warning means damaged data and already failed the decode.
    private static func keptWarnings(_ decoder: OpaquePointer) -> [String] {
        var first: UnsafePointer<CChar>?
        let count = richpush_jpeg_decoder_warnings(decoder, &first)
        guard count > 0, let first else { return [] }
        let more = count > 1 ? " (and \(count - 1) more)" : ""
        return ["JPEG: \(String(cString: first))\(more); the image data is complete, so it was rendered"]
    }

    /// Naive CMYK → RGB (the CMYK profile is dropped, as iOS would have nothing to convert it with).
    private static func convertCMYK(_ cmyk: [UInt8], rows: Int, width: Int, inverted: Bool, into destination: UnsafeMutablePointer<UInt8>) {
        cmyk.withUnsafeBufferPointer { source in
            for pixel in 0..<(rows * width) {
                var values = (UInt32(source[pixel * 4]), UInt32(source[pixel * 4 + 1]), UInt32(source[pixel * 4 + 2]),
                              UInt32(source[pixel * 4 + 3]))
                if !inverted { values = (255 - values.0, 255 - values.1, 255 - values.2, 255 - values.3) }
                // Now 255 = no ink: colour = (255 - ink) * (255 - black) / 255.
                destination[pixel * 3] = UInt8((values.0 * values.3 + 127) / 255)
                destination[pixel * 3 + 1] = UInt8((values.1 * values.3 + 127) / 255)
                destination[pixel * 3 + 2] = UInt8((values.2 * values.3 + 127) / 255)
            }
        }
    }
}
