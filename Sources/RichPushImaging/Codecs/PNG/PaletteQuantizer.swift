/// Reduces straight RGBA pixels to at most 256 RGBA colours (`IndexedImage`), for a colour type 3 PNG.
///
/// An image of at most 256 distinct colours (fully transparent pixels counting as one) keeps them exactly.
/// Otherwise the palette is chosen in premultiplied colour, so a nearly transparent pixel's colour weighs as little
/// as it shows and transparent pixels do not spend entries: median cut over a sample of the pixels (every pixel up
/// to `sampleLimit`, a regular stride beyond), refined by `refinementIterations` rounds of k-means over the same
/// sample; fully transparent pixels map to one entry (0, 0, 0, 0). Every pixel then takes its nearest entry
/// (`NearestEntrySearch`: the squared error shown over black plus over white), with no dithering (`dithers`).
///
/// Cost: one pass over the pixels for the exact case, else the median cut's sorts of s samples (s log s per level
/// of splitting), 3 × s nearest-entry searches and one search per pixel (a search visits the entries sorted by
/// green outwards from the pixel's, usually a fraction of them); a noisy photograph costs several times a flat
/// graphic (docs/benchmarks.md, "Palette PNGs for alpha"). Memory: `workingBytes`.
enum PaletteQuantizer {
    static let maximumColours = 256
    /// Pixels sampled for choosing the palette: enough that a colour covering 1/1000 of a photo is well represented.
    static let sampleLimit = 1 << 18
    static let refinementIterations = 3
    /// Floyd-Steinberg error diffusion, measured both ways (docs/benchmarks.md, "Palette PNGs for alpha"): where the
    /// plain palette passes, dithering adds little or no score for several times the bytes (the noise it adds
    /// defeats deflate), and on a noisy photograph both stay far below a useful target. So the plain mapping wins.
    static let dithers = false
    /// A sample with more distinct colours than this share of its pixels, and more than 16 per palette entry, is
    /// photographic (sensor noise in every channel): no 256 colours hold it, and the quantisation is not tried.
    /// The share lies between the corpus's RGBA photo, whose palette fails any useful target, and flat graphics
    /// under alpha (docs/benchmarks.md, "Palette PNGs for alpha"). The 16 per entry keeps small images,
    /// whose anti-aliased edges are a larger share of their pixels, from counting as photographs.
    static let photographicShare = 0.0625

    /// The memory a quantisation holds beyond the source pixels: the index image, the sample (4 bytes each), the
    /// dithering's two error rows and the small per-entry tables.
    static func workingBytes(width: Int, height: Int) -> Int {
        width * height + min(width * height, sampleLimit) * 4 + 2 * (width + 2) * 4 * 4 + 64 << 10
    }

    /// The indexed image of `image` (RGBA, straight alpha), or nil when it is photographic (`photographicShare`).
    /// `dithered` overrides `dithers` (for measuring both).
    static func quantize(_ image: PixelBuffer, dithered: Bool = dithers, budget: WorkBudget) throws(ImageError) -> IndexedImage? {
        guard image.channels == 4 else {
            throw .encodeFailed(reason: "palette quantisation needs RGBA pixels, got \(image.channels) channels")
        }
        var indices = [UInt8](repeating: 0, count: image.width * image.height)
        if let palette = exactPalette(of: image, indices: &indices) {
            var exact = IndexedImage(width: image.width, height: image.height, palette: palette, indices: indices)
            sortTranslucentFirst(&exact)
            return exact
        }
        try budget.check()
        var samples = sample(image)
        let photographic = max(maximumColours * 16, Int(Double(samples.count) * photographicShare))
        guard !hasMoreColours(samples, than: photographic) else { return nil }
        let hasTransparent = image.pixels.withUnsafeBufferPointer { pixels in
            stride(from: 3, to: pixels.count, by: 4).contains { pixels[$0] == 0 }
        }
        var centres = medianCut(&samples, colours: maximumColours - (hasTransparent ? 1 : 0))
        for _ in 0..<refinementIterations {
            try budget.check()
            centres = refine(centres, samples: samples)
        }
        var palette: [UInt8] = hasTransparent ? [0, 0, 0, 0] : []
        for centre in centres {
            let alpha = max(1, min(255, centre[3]))
            for channel in 0..<3 { palette.append(UInt8(min(255, max(0, (centre[channel] * 255 + alpha / 2) / alpha)))) }
            palette.append(UInt8(alpha))
        }
        var indexed = IndexedImage(width: image.width, height: image.height, palette: palette, indices: indices)
        sortTranslucentFirst(&indexed)
        try map(image, into: &indexed, dithered: dithered, budget: budget)
        return indexed
    }

    // MARK: Exact

    /// The image's colours when there are at most 256 (fully transparent as one, (0, 0, 0, 0)), with `indices`
    /// written; nil as soon as a 257th appears.
    private static func exactPalette(of image: PixelBuffer, indices: inout [UInt8]) -> [UInt8]? {
        var colours = ColourSet(limit: maximumColours)
        var palette: [UInt8] = []
        palette.reserveCapacity(maximumColours * 4)
        let complete = image.pixels.withUnsafeBufferPointer { pixels in
            indices.withUnsafeMutableBufferPointer { indices in
                var previousKey: UInt32 = 0, previousEntry: UInt8 = 0, hasPrevious = false
                for pixel in 0..<indices.count {
                    let alpha = UInt32(pixels[pixel * 4 + 3])
                    let key = alpha == 0 ? 0 : UInt32(pixels[pixel * 4]) | UInt32(pixels[pixel * 4 + 1]) << 8
                        | UInt32(pixels[pixel * 4 + 2]) << 16 | alpha << 24
                    if hasPrevious, key == previousKey {
                        indices[pixel] = previousEntry
                        continue
                    }
                    guard let entry = colours.number(of: key) else { return false }
                    if entry == palette.count / 4 {
                        palette += [UInt8(key & 0xFF), UInt8(key >> 8 & 0xFF), UInt8(key >> 16 & 0xFF), UInt8(key >> 24)]
                    }
                    previousKey = key
                    previousEntry = UInt8(entry)
                    hasPrevious = true
                    indices[pixel] = previousEntry
                }
                return true
            }
        }
        return complete ? (palette.isEmpty ? [0, 0, 0, 0] : palette) : nil
    }

    // MARK: Choosing the palette

    /// Premultiplied colours of non-transparent pixels, packed R | G << 8 | B << 16 | A << 24.
    private static func sample(_ image: PixelBuffer) -> [UInt32] {
        let count = image.width * image.height
        let step = max(1, (count + sampleLimit - 1) / sampleLimit)
        var samples: [UInt32] = []
        samples.reserveCapacity(min(count, sampleLimit))
        image.pixels.withUnsafeBufferPointer { pixels in
            var pixel = 0
            while pixel < count {
                if pixels[pixel * 4 + 3] != 0 {
                    let colour = SIMD4<UInt32>(truncatingIfNeeded: premultiplied(pixels.baseAddress! + pixel * 4))
                    samples.append(colour[0] | colour[1] << 8 | colour[2] << 16 | colour[3] << 24)
                }
                pixel += step
            }
        }
        return samples
    }

    /// Whether `samples` hold more than `limit` distinct values: an open-addressed table, left as soon as it is
    /// passed (a photograph is known after a few thousand samples).
    private static func hasMoreColours(_ samples: [UInt32], than limit: Int) -> Bool {
        var colours = ColourSet(limit: limit)
        return samples.contains { colours.number(of: $0) == nil }
    }

    /// Splits the samples into up to `colours` boxes, each time the box with the largest squared deviation along
    /// one channel, at that channel's median; returns each box's mean.
    private static func medianCut(_ samples: inout [UInt32], colours: Int) -> [SIMD4<Int32>] {
        guard !samples.isEmpty else { return [] }
        struct Box { var start: Int, end: Int, channel: Int, deviation: Double }
        func box(_ start: Int, _ end: Int) -> Box {
            var sums = [Double](repeating: 0, count: 4), squares = [Double](repeating: 0, count: 4)
            for sample in samples[start..<end] {
                for channel in 0..<4 {
                    let value = Double(sample >> (channel * 8) & 0xFF)
                    sums[channel] += value
                    squares[channel] += value * value
                }
            }
            let count = Double(end - start)
            var widest = 0, deviation = 0.0
            for channel in 0..<4 {
                let spread = squares[channel] - sums[channel] * sums[channel] / count
                if spread > deviation { deviation = spread; widest = channel }
            }
            return Box(start: start, end: end, channel: widest, deviation: end - start < 2 ? 0 : deviation)
        }
        var boxes = [box(0, samples.count)]
        while boxes.count < colours {
            guard let chosen = boxes.indices.max(by: { boxes[$0].deviation < boxes[$1].deviation }),
                  boxes[chosen].deviation > 0 else { break }
            let split = boxes[chosen], shift = UInt32(split.channel * 8)
            samples[split.start..<split.end].sort { ($0 >> shift) & 0xFF < ($1 >> shift) & 0xFF }
            // The median, moved past equal values so both halves differ along the channel.
            var middle = (split.start + split.end) / 2
            let median = samples[middle] >> shift & 0xFF
            while middle > split.start, samples[middle - 1] >> shift & 0xFF == median { middle -= 1 }
            if middle == split.start {
                middle = (split.start + split.end) / 2
                while middle < split.end, samples[middle] >> shift & 0xFF == median { middle += 1 }
            }
            boxes[chosen] = box(split.start, middle)
            boxes.append(box(middle, split.end))
        }
        return boxes.map { box in
            var sums = [Int](repeating: 0, count: 4)
            for sample in samples[box.start..<box.end] {
                for channel in 0..<4 { sums[channel] += Int(sample >> (channel * 8) & 0xFF) }
            }
            let count = box.end - box.start
            return SIMD4<Int32>((0..<4).map { Int32((sums[$0] + count / 2) / count) })
        }
    }

    /// One k-means round: each centre moves to the mean of the samples nearest to it (kept when none are).
    private static func refine(_ centres: [SIMD4<Int32>], samples: [UInt32]) -> [SIMD4<Int32>] {
        let search = NearestEntrySearch(premultiplied: centres)
        var sums = [SIMD4<Int>](repeating: .zero, count: centres.count), counts = [Int](repeating: 0, count: centres.count)
        for sample in samples {
            let colour = unpacked(sample)
            let entry = search.nearest(colour)
            sums[entry] &+= SIMD4<Int>(truncatingIfNeeded: colour)
            counts[entry] += 1
        }
        return centres.indices.map { index in
            let count = counts[index]
            guard count > 0 else { return centres[index] }
            return SIMD4<Int32>(truncatingIfNeeded: (sums[index] &+ SIMD4(repeating: count / 2)) / SIMD4(repeating: count))
        }
    }

    /// Straight RGBA at `rgba` as premultiplied colour (each channel times alpha, rounded) and alpha: what a decoder
    /// composites, for the sample, the palette entries and the pixels alike.
    @inline(__always)
    private static func premultiplied(_ rgba: UnsafePointer<UInt8>) -> SIMD4<Int32> {
        let alpha = Int32(rgba[3])
        return SIMD4((Int32(rgba[0]) * alpha + 127) / 255, (Int32(rgba[1]) * alpha + 127) / 255,
                     (Int32(rgba[2]) * alpha + 127) / 255, alpha)
    }

    @inline(__always)
    private static func unpacked(_ sample: UInt32) -> SIMD4<Int32> {
        SIMD4(Int32(sample & 0xFF), Int32(sample >> 8 & 0xFF), Int32(sample >> 16 & 0xFF), Int32(sample >> 24))
    }

    /// Reorders the palette so entries with alpha below 255 come first (tRNS lists only those), and the indices
    /// with it.
    private static func sortTranslucentFirst(_ image: inout IndexedImage) {
        let count = image.paletteCount
        let order = (0..<count).sorted { image.palette[$0 * 4 + 3] < image.palette[$1 * 4 + 3] }
        guard order != Array(0..<count) else { return }
        var remap = [UInt8](repeating: 0, count: 256), palette: [UInt8] = []
        palette.reserveCapacity(image.palette.count)
        for (new, old) in order.enumerated() {
            remap[old] = UInt8(new)
            palette += image.palette[(old * 4)..<(old * 4 + 4)]
        }
        image.palette = palette
        remap.withUnsafeBufferPointer { remap in
            image.indices.withUnsafeMutableBufferPointer { indices in
                for pixel in 0..<indices.count { indices[pixel] = remap[Int(indices[pixel])] }
            }
        }
    }

    // MARK: Mapping

    /// Writes each pixel's nearest entry (in premultiplied RGBA as the decoder will show the entry) into `image`'s
    /// indices; with `dithered`, Floyd-Steinberg diffuses each pixel's error to the unvisited neighbours.
    private static func map(_ source: PixelBuffer, into image: inout IndexedImage, dithered: Bool,
                            budget: WorkBudget) throws(ImageError) {
        let palette = image.palette
        let entries: [SIMD4<Int32>] = palette.withUnsafeBufferPointer { palette in
            (0..<image.paletteCount).map { premultiplied(palette.baseAddress! + $0 * 4) }
        }
        let search = NearestEntrySearch(premultiplied: entries)
        let transparent = UInt8(entries.firstIndex { $0[3] == 0 } ?? search.nearest(.zero))
        let width = source.width
        // Errors × 16 for this row and the next, one pixel of margin on each side.
        var current = [Int32](repeating: 0, count: dithered ? (width + 2) * 4 : 0), next = current
        var row = 0
        while row < source.height {
            try budget.check()
            let end = min(source.height, row + WorkBudget.bandRows)
            source.pixels.withUnsafeBufferPointer { pixels in
                image.indices.withUnsafeMutableBufferPointer { indices in
                    var previousPixel: UInt32 = 0, previousEntry = transparent
                    for y in row..<end {
                        for x in 0..<width {
                            let pixel = y * width + x
                            let raw = UnsafeRawPointer(pixels.baseAddress! + pixel * 4).loadUnaligned(as: UInt32.self)
                            if pixels[pixel * 4 + 3] == 0 {
                                indices[pixel] = transparent
                                continue
                            }
                            if !dithered, raw == previousPixel {
                                indices[pixel] = previousEntry
                                continue
                            }
                            var colour = premultiplied(pixels.baseAddress! + pixel * 4)
                            if dithered {
                                let at = (x + 1) * 4
                                colour[3] = min(255, max(1, colour[3] + (current[at + 3] + 8) >> 4))
                                for channel in 0..<3 {
                                    colour[channel] = min(colour[3], max(0, colour[channel] + (current[at + channel] + 8) >> 4))
                                }
                            }
                            let entry = search.nearest(colour)
                            indices[pixel] = UInt8(entry)
                            previousPixel = raw
                            previousEntry = UInt8(entry)
                            if dithered {
                                let errors = colour &- entries[entry]
                                for channel in 0..<4 {
                                    let at = (x + 1) * 4 + channel, error = errors[channel]
                                    current[at + 4] += error * 7
                                    next[at - 4] += error * 3
                                    next[at] += error * 5
                                    next[at + 4] += error
                                }
                            }
                        }
                        if dithered {
                            swap(&current, &next)
                            for index in next.indices { next[index] = 0 }
                        }
                    }
                }
            }
            row = end
        }
    }
}
