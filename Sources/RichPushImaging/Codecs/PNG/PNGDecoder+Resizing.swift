
extension PNGDecoder {
    /// Feeds the rows to a `StreamingResampler` as they are decoded, so the full-size image never exists: the
    /// 1920×1280 corpus PNG no longer allocates, faults in and fills a 7 MB buffer only for the resize to read it
    /// once.
    ///
    /// The result is what `Resampler.lanczos` gives for the whole image, premultiplied first when there is alpha
    /// (as the render path does before resizing), so a render is byte for byte the same as with a full decode.
    /// An opaque RGBA image is resized with its alpha, which changes nothing in its colour channels: the pipeline
    /// drops the alpha afterwards, as it would have before. Cost: the decode plus the resize; memory is a window
    /// of rows and the resize's intermediate.
    static func decodeResized(_ source: PNGRowSource, width: Int, height: Int, channels: Int, plan: ResizePlan,
                              iccProfile: [UInt8]?, budget: WorkBudget) throws(ImageError) -> DecodedImage {
        // Every row is decoded, even below a crop, so damaged data anywhere still fails the decode.
        try resizeBands(width: width, height: height, channels: channels, plan: plan, iccProfile: iccProfile,
                        budget: budget) { (rows, _, count) throws(ImageError) in
            try source.read(count, into: rows, rowBytes: width * channels)
        }
    }

    /// Runs bands of `WorkBudget.bandRows` rows through a `StreamingResampler`: `fill(rows, first, count)` writes
    /// rows `first..<first + count` at `rows`, and each band is premultiplied (noting whether any pixel is
    /// translucent) when there is alpha, as the render path does before resizing. Checks the budget per band.
    static func resizeBands(width: Int, height: Int, channels: Int, plan: ResizePlan, iccProfile: [UInt8]?,
                            budget: WorkBudget,
                            fill: (UnsafeMutablePointer<UInt8>, Int, Int) throws(ImageError) -> Void) throws(ImageError) -> DecodedImage {
        var resampler = StreamingResampler(sourceWidth: width, sourceHeight: height, channels: channels, plan: plan,
                                           bandRows: WorkBudget.bandRows)
        let rowBytes = width * channels
        var translucent = false
        var row = 0
        while row < height {
            try budget.check()
            let first = row
            row += try resampler.receiveRows(upTo: min(WorkBudget.bandRows, height - row)) { (rows, count) throws(ImageError) -> Int in
                try fill(rows, first, count)
                if channels == 4 {
                    let band = UnsafeMutableBufferPointer(start: rows, count: count * rowBytes)
                    translucent = translucent || PixelBuffer.hasTranslucentPixels(UnsafeBufferPointer(band))
                    PixelBuffer.premultiply(band)
                }
                return count
            }
        }
        return DecodedImage(pixels: try resampler.finish(budget: budget), iccProfile: iccProfile, isPremultiplied: channels == 4,
                            hasTranslucentPixels: channels == 4 ? translucent : nil, decodedSize: (width, height))
    }
}
