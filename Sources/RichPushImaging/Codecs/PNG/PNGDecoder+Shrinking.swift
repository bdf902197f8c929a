extension PNGDecoder {
    /// Decodes a band of rows at a time and box-shrinks each band by `reduction` as it arrives, so the full-size
    /// image never exists: a 40 MP RGBA PNG shrunk by 3 holds 18 MB of pixels instead of 160 MB, plus one band.
    ///
    /// The result is what `Resampler.boxShrink` gives for the whole image, premultiplied first when there is alpha
    /// (as the render path does before resizing), so a render is byte for byte the same as with a full decode.
    /// Whether any source pixel was translucent is recorded before shrinking: averaging can round a block with
    /// one translucent pixel to opaque. Cost: the full decode's inflate work plus one box pass; the budget is
    /// checked per band.
    static func decodeShrunk(_ source: PNGRowSource, width: Int, height: Int, channels: Int, by reduction: Int,
                             iccProfile: [UInt8]?, budget: WorkBudget) throws(ImageError) -> DecodedImage {
        let outputWidth = (width + reduction - 1) / reduction, outputHeight = (height + reduction - 1) / reduction
        var output = PixelBuffer(width: outputWidth, height: outputHeight, channels: channels)
        // Whole multiples of the reduction, so each band shrinks to whole output rows.
        let bandHeight = reduction * max(1, WorkBudget.bandRows / reduction)
        var band = PixelBuffer(width: width, height: bandHeight, channels: channels)
        var translucent = false
        var row = 0
        while row < height {
            try budget.check()
            let count = min(bandHeight, height - row)
            try source.read(into: &band, at: 0, count: count)
            var rows = count == bandHeight ? band
                : PixelBuffer(width: width, height: count, channels: channels, pixels: Array(band.pixels[0..<(count * band.rowBytes)]))
            if channels == 4 {
                translucent = translucent || rows.hasTranslucentPixels
                rows.premultiply()
            }
            let shrunk = try Resampler.boxShrink(rows, by: reduction, budget: budget)
            let start = (row / reduction) * output.rowBytes
            output.pixels.replaceSubrange(start..<(start + shrunk.pixels.count), with: shrunk.pixels)
            row += count
        }
        return DecodedImage(pixels: output, iccProfile: iccProfile, isPremultiplied: channels == 4,
                            hasTranslucentPixels: translucent)
    }
}
