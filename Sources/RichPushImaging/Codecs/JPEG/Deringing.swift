/// Overshoot deringing (the method mozjpeg's `jcdctmgr.c` introduced for white, extended here to black): before the
/// forward DCT, a block's runs of white samples are raised above white along a smooth curve, and its runs of black
/// lowered below black. Every decoder clips them back, so the ringing that quantisation adds beside a stroke is cut
/// off instead of showing as grey halos on the white (or black) background, and the block needs fewer bits for the
/// same look. The file stays an ordinary JPEG.
///
/// It pays under the quality search, where a cleaner edge reaches the target at a lower quality: fewer bytes on text
/// and line art on a white or black background, nothing on photographs (docs/benchmarks.md, "Deringing"). At one
/// quality it costs some bytes for a much better score. Only an image's background extremes are deringed
/// (`backgrounds(of:)`).
enum Deringing {
    /// White and black in a level-shifted sample (255 - 128 and 0 - 128).
    static let white: Float = 127
    static let black: Float = -128
    /// The farthest a run may go past white or black, before the limits from the block's mean and its DC step.
    static let largestOvershoot: Float = 31
    /// Which extremes an image's runs are moved past: its backgrounds.
    struct Extremes: OptionSet, Sendable {
        let rawValue: Int
        static let white = Extremes(rawValue: 1)
        static let black = Extremes(rawValue: 2)
    }

    /// An extreme is deringed when at least this share of the luma blocks are partly at it (the strokes' edges)...
    /// The corpus photographs stay under it (deringing neither helps nor costs there), text and most line art are
    /// over it, measured at the output size (docs/benchmarks.md, "Deringing").
    static let minimumPartlyShare = 0.05
    /// ...and at least this share wholly at it: it is a background, not the strokes. Deringing the strokes' own
    /// extreme (black text on white, dark line art) made the searched files larger. The backgrounds of text and line
    /// art are well over it, the strokes and the corpus photographs have no such block (docs/benchmarks.md,
    /// "Deringing").
    static let minimumWhollyShare = 0.10

    /// The extremes `pixels` has as backgrounds with edges on them (`minimumPartlyShare`, `minimumWhollyShare`),
    /// judged on whole 8x8 blocks of luma as `JPEGTransform` will see them. Cost: one pass over the pixels.
    static func backgrounds(of pixels: PixelBuffer) -> Extremes {
        let columns = pixels.width / 8, rows = pixels.height / 8
        guard columns > 0, rows > 0, pixels.channels == 3 else { return [] }
        var partlyWhite = 0, whollyWhite = 0, partlyBlack = 0, whollyBlack = 0
        pixels.pixels.withUnsafeBufferPointer { bytes in
            for blockRow in 0..<rows {
                for blockColumn in 0..<columns {
                    var whites = 0, blacks = 0
                    for y in (blockRow * 8)..<(blockRow * 8 + 8) {
                        var offset = y * pixels.rowBytes + blockColumn * 24
                        for _ in 0..<8 {
                            let luma = JPEGTransform.luma(red: Int32(bytes[offset]), green: Int32(bytes[offset + 1]),
                                                          blue: Int32(bytes[offset + 2]))
                            if luma >= 255 { whites += 1 }
                            if luma <= 0 { blacks += 1 }
                            offset += 3
                        }
                    }
                    if whites == 64 { whollyWhite += 1 } else if whites > 0 { partlyWhite += 1 }
                    if blacks == 64 { whollyBlack += 1 } else if blacks > 0 { partlyBlack += 1 }
                }
            }
        }
        let blocks = Double(columns * rows)
        func isBackground(partly: Int, wholly: Int) -> Bool {
            Double(partly) >= minimumPartlyShare * blocks && Double(wholly) >= minimumWhollyShare * blocks
        }
        var extremes: Extremes = []
        if isBackground(partly: partlyWhite, wholly: whollyWhite) { extremes.insert(.white) }
        if isBackground(partly: partlyBlack, wholly: whollyBlack) { extremes.insert(.black) }
        return extremes
    }

    /// Whether a block of 64 level-shifted samples (natural order) is partly, but not wholly, at one of `extremes`.
    static func isPartly(_ block: UnsafeBufferPointer<Float>, at extremes: Extremes) -> Bool {
        var whites = 0, blacks = 0
        for sample in block {
            if sample >= white { whites += 1 }
            if sample <= black { blacks += 1 }
        }
        return (extremes.contains(.white) && whites > 0 && whites < 64)
            || (extremes.contains(.black) && blacks > 0 && blacks < 64)
    }

    /// Moves each run of white samples in `block` (64 level-shifted samples in natural order) above white, and each
    /// run of black below black, for the `extremes` given, along a cubic that leaves the extreme with the slope the
    /// run's neighbours arrive at, capped by `largestOvershoot`, twice `dcStep` (a coarser DC pays more for
    /// amplitude) and what keeps the block's mean within the extreme. Other samples, and a block wholly at the
    /// extreme, are left alone. Cost: a pass over the block per extreme.
    static func apply(to block: UnsafeMutableBufferPointer<Float>, dcStep: Int, extremes: Extremes = [.white, .black]) {
        if extremes.contains(.white) { overshoot(block, past: white, dcStep: dcStep) }
        guard extremes.contains(.black) else { return }
        // Black is white mirrored: the same curve on the negated samples.
        for k in 0..<64 { block[k] = -block[k] }
        overshoot(block, past: -black, dcStep: dcStep)
        for k in 0..<64 { block[k] = -block[k] }
    }

    /// Raises the runs of samples at or above `extreme` (the overshoot for white, or for black negated).
    private static func overshoot(_ block: UnsafeMutableBufferPointer<Float>, past extreme: Float, dcStep: Int) {
        var sum: Float = 0, saturated = 0
        for sample in block {
            sum += sample
            if sample >= extreme { saturated += 1 }
        }
        guard saturated > 0, saturated < 64 else { return }
        let roomInMean = ((extreme * 64 - sum) / Float(saturated)).rounded(.towardZero)
        let ceiling = extreme + min(largestOvershoot, Float(2 * dcStep), roomInMean)
        let zigzag = JPEGTransform.zigzag   // read once, not through the global's lazy initialiser at every sample
        func sample(_ position: Int) -> Float { block[zigzag[min(63, max(0, position))]] }

        var position = 0
        while position < 64 {
            guard sample(position) >= extreme else {
                position += 1
                continue
            }
            let start = position
            while position < 64, sample(position) >= extreme { position += 1 }
            let end = position   // the first position after the run
            // How steeply the signal climbs into the run and falls out of it: at least its distance to the extreme.
            var rise = max(sample(start - 1) - sample(start - 2), extreme - sample(start - 1))
            var fall = max(sample(end) - sample(end + 1), extreme - sample(end))
            if start == 0 { rise = fall }
            if end == 64 { fall = rise }
            let length = Float(end - start), step = 1 / (length + 1)
            for offset in 0..<(end - start) {
                let t = step * Float(offset + 1)
                // Hermite from the extreme back to it, leaving with slope `rise` and arriving with `-fall` per sample.
                let t2 = t * t, t3 = t2 * t
                let curve = extreme + (t3 - 2 * t2 + t) * rise * length - (t3 - t2) * fall * length
                block[zigzag[start + offset]] = min(curve.rounded(.up), ceiling)
            }
        }
    }
}
