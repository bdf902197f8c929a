import CRichPushImage
import Glibc

extension PNGDecoder {
    /// The Adam7 passes: the first column and row of each, and the steps between its columns and rows.
    private static let adam7: [(column: Int, row: Int, columnStep: Int, rowStep: Int)] = [
        (0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2),
    ]

    /// Bytes per running sum when shrinking by `reduction`: 16 bits hold a 16x16 block of 255s (65 280), larger
    /// blocks need 32.
    static func sumBytes(forReduction reduction: Int) -> Int { reduction <= 16 ? 2 : 4 }

    /// The interlaced counterpart of `decodeShrunk`: an Adam7 image's rows arrive in seven passes, each with a
    /// different subset of pixels, so no band is ever complete until the last pass. Instead each pixel is added,
    /// premultiplied when there is alpha, to the running sum of the output pixel whose block it falls in; the
    /// sums are divided once every pass is in.
    ///
    /// The result is exactly `Resampler.boxShrink` of the premultiplied full-size image: the same sums, the same
    /// rounding. Memory: the sums (2 or 4 bytes per output sample, see `sumBytes`, turned into the output in place)
    /// and one band of full-width rows, instead of the full-size image: a 6000x6000 RGBA file shrunk by 7 holds
    /// 5.9 MB of sums, not 144 MB.
    /// Cost: the full decode's inflate work (libpng still widens each pass's rows to full width) plus one add per
    /// source sample; the budget is checked per band.
    static func decodeInterlacedShrunk(_ decoder: OpaquePointer, width: Int, height: Int, channels: Int, by reduction: Int,
                                       iccProfile: [UInt8]?, stopCheck: LibraryStopCheck) throws(ImageError) -> DecodedImage {
        if sumBytes(forReduction: reduction) == 2 {
            return try accumulatePasses(UInt16.self, decoder, width: width, height: height, channels: channels, by: reduction,
                                        iccProfile: iccProfile, stopCheck: stopCheck)
        }
        return try accumulatePasses(UInt32.self, decoder, width: width, height: height, channels: channels, by: reduction,
                                    iccProfile: iccProfile, stopCheck: stopCheck)
    }

    private static func accumulatePasses<Sum: FixedWidthInteger & UnsignedInteger>(
        _: Sum.Type, _ decoder: OpaquePointer, width: Int, height: Int, channels: Int, by reduction: Int,
        iccProfile: [UInt8]?, stopCheck: LibraryStopCheck
    ) throws(ImageError) -> DecodedImage {
        let outputWidth = (width + reduction - 1) / reduction, outputHeight = (height + reduction - 1) / reduction
        let sampleCount = outputWidth * outputHeight * channels
        // Malloc'd rather than an array: the averages are written over the sums in place and the block is then
        // shrunk to them, so the sums and a separate output never coexist (at a shrink by 2 the sums are twice
        // the output: 72 MB for a 6000x6000 RGBA file, whose output is 36 MB).
        guard let storage = calloc(max(1, sampleCount), MemoryLayout<Sum>.stride) else {
            throw .outOfMemory(bytes: sampleCount * MemoryLayout<Sum>.stride)
        }
        var block: UnsafeMutableRawPointer? = storage
        defer { free(block) }
        let sums = storage.bindMemory(to: Sum.self, capacity: sampleCount)
        var band = PixelBuffer(width: width, height: WorkBudget.bandRows, channels: channels)
        var translucent = false
        for pass in adam7 {
            // With libpng's interlace handling every pass reads every image row; it writes only this pass's pixels,
            // on this pass's rows, and leaves the rest of the band as it was.
            var row = 0
            while row < height {
                try stopCheck.budget.check()
                let count = min(WorkBudget.bandRows, height - row)
                try readRows(decoder, into: &band, at: 0, count: count, stopCheck: stopCheck)
                let firstInPass = row + (pass.row - row % pass.rowStep + pass.rowStep) % pass.rowStep
                for y in stride(from: firstInPass, to: row + count, by: pass.rowStep) {
                    let sumRow = sums + (y / reduction) * outputWidth * channels
                    band.pixels.withUnsafeBufferPointer { pixels in
                        let source = pixels.baseAddress! + (y - row) * band.rowBytes
                        for x in stride(from: pass.column, to: width, by: pass.columnStep) {
                            let pixel = source + x * channels
                            let target = sumRow + (x / reduction) * channels
                            if channels == 4 {
                                let alpha = UInt32(pixel[3])
                                if alpha != 255 {
                                    translucent = true
                                    // The rounding of `PixelBuffer.premultiply`.
                                    for channel in 0..<3 { target[channel] &+= Sum((UInt32(pixel[channel]) * alpha + 127) / 255) }
                                } else {
                                    for channel in 0..<3 { target[channel] &+= Sum(pixel[channel]) }
                                }
                                target[3] &+= Sum(alpha)
                            } else {
                                for channel in 0..<3 { target[channel] &+= Sum(pixel[channel]) }
                            }
                        }
                    }
                }
                row += count
            }
        }
        try stopCheck.budget.check()
        // Byte i of the averages lies within sum i, or an earlier one, already read: a forward pass may overwrite.
        let averages = storage.assumingMemoryBound(to: UInt8.self)
        for outputY in 0..<outputHeight {
            let rows = UInt32(min(reduction, height - outputY * reduction))
            for outputX in 0..<outputWidth {
                // Partial blocks at the right and bottom edges average what they have, as `boxShrink` does.
                let area = UInt32(min(reduction, width - outputX * reduction)) * rows
                let start = (outputY * outputWidth + outputX) * channels
                for channel in 0..<channels {
                    averages[start + channel] = UInt8((UInt32(sums[start + channel]) + area / 2) / area)
                }
            }
        }
        // Give the sums' tail back before the copy (glibc shrinks a large block in place, returning its pages).
        block = realloc(storage, max(1, sampleCount)) ?? storage
        let shrunk = block!.assumingMemoryBound(to: UInt8.self)
        let pixels = [UInt8](UnsafeBufferPointer(start: shrunk, count: sampleCount))
        return DecodedImage(pixels: PixelBuffer(width: outputWidth, height: outputHeight, channels: channels, pixels: pixels),
                            iccProfile: iccProfile, isPremultiplied: channels == 4, hasTranslucentPixels: translucent)
    }

    /// The interlaced counterpart of `decodeResized`, for a resize with no box pre-shrink: Adam7's first six passes
    /// hold exactly the even rows and the seventh exactly the odd ones, so the even rows are kept through the first
    /// six passes (half the image), and during the seventh each band of whole rows (the kept even rows copied in,
    /// the odd ones decoded by libpng, which leaves the even rows alone in that pass) goes to a `StreamingResampler`.
    ///
    /// The result is `decodeResized`'s: `Resampler.lanczos` of the whole image, premultiplied when there is alpha.
    /// Memory: half the full-size image, a window of rows and the resize's intermediate, instead of the full-size
    /// image and its copy (a 6000x6000 RGBA story page: 72 MB instead of 288). Cost: the full decode's inflate work
    /// plus the resize; the budget is checked per band.
    static func decodeInterlacedResized(_ decoder: OpaquePointer, width: Int, height: Int, channels: Int, plan: ResizePlan,
                                        iccProfile: [UInt8]?, stopCheck: LibraryStopCheck) throws(ImageError) -> DecodedImage {
        let budget = stopCheck.budget
        let rowBytes = width * channels
        var evenRows = [UInt8](repeating: 0, count: (height + 1) / 2 * rowBytes)
        var discarded = [UInt8](repeating: 0, count: rowBytes)   // odd rows, which the first six passes never touch
        /// Reads the next `count` rows (from `first`) of the current pass into `pointer(row)`.
        func read(from first: Int, count: Int, into pointer: (Int) -> UnsafeMutablePointer<UInt8>) throws(ImageError) {
            var pointers = (first..<(first + count)).map { Optional(pointer($0)) }
            let status = richpush_png_read_rows(decoder, &pointers, Int32(count))
            guard status >= 0 else { throw failure(decoder, status, stopCheck) }
        }
        for _ in adam7.dropLast() {
            var row = 0
            while row < height {
                try budget.check()
                let count = min(WorkBudget.bandRows, height - row)
                try evenRows.withUnsafeMutableBufferPointer { (even) throws(ImageError) in
                    try discarded.withUnsafeMutableBufferPointer { (odd) throws(ImageError) in
                        try read(from: row, count: count) { $0 % 2 == 0 ? even.baseAddress! + $0 / 2 * rowBytes : odd.baseAddress! }
                    }
                }
                row += count
            }
        }
        return try resizeBands(width: width, height: height, channels: channels, plan: plan, iccProfile: iccProfile,
                               budget: budget) { (rows, first, count) throws(ImageError) in
            evenRows.withUnsafeBufferPointer { even in
                for y in stride(from: first + first % 2, to: first + count, by: 2) {
                    (rows + (y - first) * rowBytes).update(from: even.baseAddress! + y / 2 * rowBytes, count: rowBytes)
                }
            }
            try read(from: first, count: count) { rows + ($0 - first) * rowBytes }
        }
    }
}
