/// Overshoot deringing (the method mozjpeg's `jcdctmgr.c` introduced): before the forward DCT, a block's runs of
/// white samples are raised above white along a smooth curve. Every decoder clips them back to white, so the ringing
/// that quantisation adds beside a dark-on-white edge is cut off instead of showing as grey halos, and the block
/// needs fewer bits at the same look. The file stays an ordinary JPEG.
///
/// It pays under the quality search, where a cleaner edge reaches the target at a lower quality: about 29% fewer
/// bytes on dark text on white and 9% on line art on white, nothing on photographs (docs/benchmarks.md,
/// "Deringing"). At one quality it costs a few percent more bytes for a much better score.
enum Deringing {
    /// White in a level-shifted sample (255 - 128).
    static let white: Float = 127
    /// The highest a run may rise above white, before the limit from the block's mean and its DC step.
    static let largestOvershoot: Float = 31
    /// Luma blocks that are partly white, as a share of all blocks, from which a search uses deringing. Measured at
    /// the output size: the corpus photographs 0-1.2% (deringing neither helps nor costs there), line art on white
    /// 8-43%, text on white 44-57%; below this the search keeps libjpeg's own front end.
    static let minimumShare = 0.05

    /// Zig-zag order: a run of white samples is followed as a line through the block, as the entropy coder reads it.
    static let zigzag: [Int] = [
        0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14,
        21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53,
        60, 61, 54, 47, 55, 62, 63,
    ]

    /// The share of `pixels`' whole 8x8 blocks whose luma is partly, but not wholly, white, as `JPEGTransform` will
    /// see them. Cost: one pass over the pixels.
    static func partlyWhiteShare(_ pixels: PixelBuffer) -> Double {
        let columns = pixels.width / 8, rows = pixels.height / 8
        guard columns > 0, rows > 0, pixels.channels == 3 else { return 0 }
        var partlyWhite = 0
        pixels.pixels.withUnsafeBufferPointer { bytes in
            for blockRow in 0..<rows {
                for blockColumn in 0..<columns {
                    var whites = 0
                    for y in (blockRow * 8)..<(blockRow * 8 + 8) {
                        var offset = y * pixels.rowBytes + blockColumn * 24
                        for _ in 0..<8 {
                            let luma = JPEGTransform.luma(red: Int32(bytes[offset]), green: Int32(bytes[offset + 1]),
                                                          blue: Int32(bytes[offset + 2]))
                            if luma >= 255 { whites += 1 }
                            offset += 3
                        }
                    }
                    if whites > 0, whites < 64 { partlyWhite += 1 }
                }
            }
        }
        return Double(partlyWhite) / Double(columns * rows)
    }

    /// Whether a block of 64 level-shifted samples (natural order) is partly, but not wholly, white.
    static func isPartlyWhite(_ block: UnsafeBufferPointer<Float>) -> Bool {
        var whites = 0
        for sample in block where sample >= white { whites += 1 }
        return whites > 0 && whites < 64
    }

    /// Raises each run of white samples in `block` (64 level-shifted samples in natural order) along a cubic that
    /// leaves white with the slope the run's neighbours arrive at, capped by `largestOvershoot`, twice `dcStep` (a
    /// coarser DC pays more for amplitude) and what keeps the block's mean at most white. A block with no white
    /// sample, or only white ones, is left alone. Cost: one pass over the block.
    static func apply(to block: UnsafeMutableBufferPointer<Float>, dcStep: Int) {
        var sum: Float = 0, whites = 0
        for sample in block {
            sum += sample
            if sample >= white { whites += 1 }
        }
        guard whites > 0, whites < 64 else { return }
        let roomInMean = ((white * 64 - sum) / Float(whites)).rounded(.towardZero)
        let ceiling = white + min(largestOvershoot, Float(2 * dcStep), roomInMean)
        func sample(_ position: Int) -> Float { block[zigzag[min(63, max(0, position))]] }

        var position = 0
        while position < 64 {
            guard sample(position) >= white else {
                position += 1
                continue
            }
            let start = position
            while position < 64, sample(position) >= white { position += 1 }
            let end = position   // the first position after the run
            // How steeply the signal climbs into the run and falls out of it: at least its distance below white.
            var rise = max(sample(start - 1) - sample(start - 2), white - sample(start - 1))
            var fall = max(sample(end) - sample(end + 1), white - sample(end))
            if start == 0 { rise = fall }
            if end == 64 { fall = rise }
            let length = Float(end - start), step = 1 / (length + 1)
            for offset in 0..<(end - start) {
                let t = step * Float(offset + 1)
                // Hermite from white to white, leaving with slope `rise` and arriving with `-fall` per sample.
                let t2 = t * t, t3 = t2 * t
                let curve = white + (t3 - 2 * t2 + t) * rise * length - (t3 - t2) * fall * length
                block[zigzag[start + offset]] = min(curve.rounded(.up), ceiling)
            }
        }
    }
}
