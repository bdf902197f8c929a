import Foundation

/// An RGB image as a JPEG's DCT coefficients before quantisation, computed once so that each of the quality
/// search's encodes only quantises (with `Deringing` on the blocks partly at its background extremes) and has libjpeg
/// entropy-code the result. libjpeg-turbo takes 8-bit samples and has no hook before its DCT, and deringing needs
/// samples beyond white and black: this is the front end that lets it in.
///
/// The front end is libjpeg's: its fixed-point JFIF colour conversion, its 2x2 box downsampling at 4:2:0 (with its
/// alternating rounding bias) and edge replication to whole MCUs. The DCT is an exact float one where libjpeg's is
/// integer, so without deringing it gives libjpeg's bytes within about 1% and its pixels within a level or two.
///
/// Cost: one pass of colour conversion and DCT (1,024 multiply-adds a block), then `workingBytes` while it lives.
struct JPEGTransform: Sendable {
    /// One component: its blocks row by row, 64 coefficients each in natural (row-major) order.
    struct Plane: Sendable {
        var blocksWide: Int
        var blocksHigh: Int
        var coefficients: [Float]
        /// The blocks `Deringing` changes, and their level-shifted samples, 64 each: their coefficients depend on
        /// the DC step, so they are transformed again for each encode.
        var deringedBlocks: [Int]
        var deringedSamples: [Float]
    }

    let width: Int
    let height: Int
    let chroma: JPEGEncoder.Chroma
    /// Y, Cb, Cr.
    let planes: [Plane]
    /// The extremes whose runs each encode deringes; none gives libjpeg's own coefficients.
    let deringing: Deringing.Extremes

    init(_ image: PixelBuffer, chroma: JPEGEncoder.Chroma, deringing: Deringing.Extremes,
         budget: WorkBudget) throws(ImageError) {
        guard image.channels == 3 else { throw .encodeFailed(reason: "JPEG needs RGB pixels, got \(image.channels) channels") }
        width = image.width
        height = image.height
        self.chroma = chroma
        self.deringing = deringing
        let unit = chroma == .halved ? 16 : 8
        let paddedWidth = (width + unit - 1) / unit * unit, paddedHeight = (height + unit - 1) / unit * unit
        let chromaScale = chroma == .halved ? 2 : 1
        var luma = [Float](repeating: 0, count: paddedWidth * paddedHeight)
        var blue = [Float](repeating: 0, count: paddedWidth * paddedHeight / (chromaScale * chromaScale))
        var red = blue
        try Self.convert(image, paddedWidth: paddedWidth, paddedHeight: paddedHeight, chromaScale: chromaScale,
                         luma: &luma, blue: &blue, red: &red, budget: budget)
        var planes = [try Self.transform(luma, width: paddedWidth, blocksWide: (width + 7) / 8,
                                         blocksHigh: (height + 7) / 8, deringing: deringing, budget: budget)]
        for samples in [blue, red] {
            let chromaWidth = paddedWidth / chromaScale, chromaUnit = 8 * chromaScale
            planes.append(try Self.transform(samples, width: chromaWidth, blocksWide: (width + chromaUnit - 1) / chromaUnit,
                                             blocksHigh: (height + chromaUnit - 1) / chromaUnit, deringing: deringing,
                                             budget: budget))
        }
        self.planes = planes
    }

    /// Bytes held at most while a transform of this size is built or encoded, for the render's memory budget: at
    /// 4:4:4, the larger layout, three float planes of samples, coefficients, and the samples kept for the blocks
    /// to dering (at most all of them); the planes of samples are freed before an encode's Int16 copy is made.
    static func workingBytes(width: Int, height: Int) -> Int {
        let padded = (width + 15) / 16 * 16 * ((height + 15) / 16 * 16)
        return padded * 3 * 3 * MemoryLayout<Float>.size
    }

    /// The quantised coefficients for libjpeg's tables `quantization` (128 values, luma then chroma, natural order):
    /// each coefficient divided by its step and rounded to the nearest, the blocks partly at a `deringing` extreme
    /// deringed first.
    func quantized(_ quantization: [UInt16], budget: WorkBudget) throws(ImageError) -> [[Int16]] {
        var planes: [[Int16]] = []
        for (index, plane) in self.planes.enumerated() {
            try budget.check()
            let table = Array(quantization[(index == 0 ? 0 : 64)..<(index == 0 ? 64 : 128)])
            let reciprocals = table.map { 1 / Float($0) }
            var output = [Int16](repeating: 0, count: plane.coefficients.count)
            output.withUnsafeMutableBufferPointer { output in
                reciprocals.withUnsafeBufferPointer { reciprocals in
                    plane.coefficients.withUnsafeBufferPointer { coefficients in
                        for offset in stride(from: 0, to: coefficients.count, by: 64) {
                            for k in 0..<64 { output[offset + k] = Self.rounded(coefficients[offset + k] * reciprocals[k]) }
                        }
                    }
                    var block = [Float](repeating: 0, count: 64), transformed = block
                    for (position, index) in plane.deringedBlocks.enumerated() {
                        block.withUnsafeMutableBufferPointer { block in
                            for k in 0..<64 { block[k] = plane.deringedSamples[position * 64 + k] }
                            Deringing.apply(to: block, dcStep: Int(table[0]), extremes: deringing)
                        }
                        Self.transformBlock(block, at: 0, rowLength: 8, into: &transformed, at: 0)
                        for k in 0..<64 { output[index * 64 + k] = Self.rounded(transformed[k] * reciprocals[k]) }
                    }
                }
            }
            planes.append(output)
        }
        return planes
    }

    /// To the nearest, halves away from zero as libjpeg's quantiser rounds; by truncation, which vectorises where
    /// `rounded()` is a library call per coefficient.
    @inline(__always)
    private static func rounded(_ steps: Float) -> Int16 {
        Int16(clamping: Int32(steps + (steps < 0 ? -0.5 : 0.5)))
    }

    // MARK: front end

    /// libjpeg's jccolor.c in fixed point (16 fractional bits): the same integer Y, Cb, Cr it would compute.
    private static func fix(_ value: Double) -> Int32 { Int32(value * 65536 + 0.5) }
    private static let half: Int32 = 1 << 15
    private static let chromaOffset: Int32 = 128 << 16

    /// libjpeg's Y of one RGB pixel, 0-255.
    @inline(__always)
    static func luma(red: Int32, green: Int32, blue: Int32) -> Int32 {
        (fix(0.299) * red + fix(0.587) * green + fix(0.114) * blue + half) >> 16
    }

    /// Colour conversion into `luma` (padded size) and `blue`/`red` (2x2-downsampled at `chromaScale` 2), replicating
    /// the last column and row into the padding as libjpeg does; samples are level-shifted (minus 128).
    private static func convert(_ image: PixelBuffer, paddedWidth: Int, paddedHeight: Int, chromaScale: Int,
                                luma: inout [Float], blue: inout [Float], red: inout [Float],
                                budget: WorkBudget) throws(ImageError) {
        let (rb, gb, bb) = (fix(0.16874), fix(0.33126), fix(0.5))
        let (gr, br) = (fix(0.41869), fix(0.08131))
        let width = image.width, height = image.height
        // One row of chroma per luma row at 4:4:4; two, summed 2x2 into one downsampled row, at 4:2:0.
        var blueRows = [Int32](repeating: 0, count: paddedWidth * chromaScale), redRows = blueRows
        for group in 0..<(paddedHeight / chromaScale) {
            if group % 64 == 0 { try budget.check() }
            image.pixels.withUnsafeBufferPointer { pixels in
                for rowInGroup in 0..<chromaScale {
                    let y = group * chromaScale + rowInGroup
                    let source = min(y, height - 1) * width * 3
                    for x in 0..<paddedWidth {
                        let offset = source + min(x, width - 1) * 3
                        let r = Int32(pixels[offset]), g = Int32(pixels[offset + 1]), b = Int32(pixels[offset + 2])
                        luma[y * paddedWidth + x] = Float(Self.luma(red: r, green: g, blue: b)) - 128
                        blueRows[rowInGroup * paddedWidth + x] = (bb * b - rb * r - gb * g + chromaOffset + half - 1) >> 16
                        redRows[rowInGroup * paddedWidth + x] = (bb * r - gr * g - br * b + chromaOffset + half - 1) >> 16
                    }
                }
            }
            let row = group * paddedWidth / chromaScale
            guard chromaScale == 2 else {
                for x in 0..<paddedWidth {
                    blue[row + x] = Float(blueRows[x]) - 128
                    red[row + x] = Float(redRows[x]) - 128
                }
                continue
            }
            // h2v2_downsample: the bias alternates 1, 2 along the row so that rounding does not drift.
            for x in 0..<(paddedWidth / 2) {
                let bias = Int32(1 + (x & 1))
                let a = 2 * x, b = 2 * x + 1, c = paddedWidth + 2 * x, d = paddedWidth + 2 * x + 1
                blue[row + x] = Float((blueRows[a] + blueRows[b] + blueRows[c] + blueRows[d] + bias) >> 2) - 128
                red[row + x] = Float((redRows[a] + redRows[b] + redRows[c] + redRows[d] + bias) >> 2) - 128
            }
        }
    }

    /// cos((2x + 1)u pi / 16) scaled so that the 2-D transform is JPEG's (orthonormal) DCT: row u, column x.
    private static let cosines: [Float] = (0..<64).map { index in
        let u = index / 8, x = index % 8
        let scale = u == 0 ? (1.0 / 8).squareRoot() : (2.0 / 8).squareRoot()
        return Float(scale * cos(Double((2 * x + 1) * u) * Double.pi / 16))
    }

    /// The forward DCT of each of `blocksWide` x `blocksHigh` blocks of `samples` (rows of `width`), keeping the
    /// samples of those partly at a `deringing` extreme.
    private static func transform(_ samples: [Float], width: Int, blocksWide: Int, blocksHigh: Int,
                                  deringing: Deringing.Extremes, budget: WorkBudget) throws(ImageError) -> Plane {
        var plane = Plane(blocksWide: blocksWide, blocksHigh: blocksHigh,
                          coefficients: [Float](repeating: 0, count: blocksWide * blocksHigh * 64),
                          deringedBlocks: [], deringedSamples: [])
        var block = [Float](repeating: 0, count: 64)
        for blockRow in 0..<blocksHigh {
            if blockRow % 16 == 0 { try budget.check() }
            for blockColumn in 0..<blocksWide {
                let origin = blockRow * 8 * width + blockColumn * 8, index = blockRow * blocksWide + blockColumn
                transformBlock(samples, at: origin, rowLength: width, into: &plane.coefficients, at: index * 64)
                for y in 0..<8 {
                    for x in 0..<8 { block[y * 8 + x] = samples[origin + y * width + x] }
                }
                if !deringing.isEmpty, block.withUnsafeBufferPointer({ Deringing.isPartly($0, at: deringing) }) {
                    plane.deringedBlocks.append(index)
                    plane.deringedSamples += block
                }
            }
        }
        return plane
    }

    /// The cosines by column: `cosineColumns[x][u]` is `cosines[u * 8 + x]`, so that one row's 1-D transform is eight
    /// vector multiply-adds.
    private static let cosineColumns: [SIMD8<Float>] = (0..<8).map { x in
        SIMD8<Float>((0..<8).map { u in cosines[u * 8 + x] })
    }

    /// The 8x8 DCT of the block at `origin` of `samples` (rows of `rowLength`), written to `output` from `start`:
    /// rows, then columns, each as eight-wide vector multiply-adds (128 a block).
    private static func transformBlock(_ samples: [Float], at origin: Int, rowLength: Int, into output: inout [Float],
                                       at start: Int) {
        let columns = cosineColumns, cosines = self.cosines
        withUnsafeTemporaryAllocation(of: SIMD8<Float>.self, capacity: 8) { rows in
            samples.withUnsafeBufferPointer { samples in
                // rows[y][u]: row y's 1-D transform.
                for y in 0..<8 {
                    let row = origin + y * rowLength
                    var sum = SIMD8<Float>()
                    for x in 0..<8 { sum += samples[row + x] * columns[x] }
                    rows[y] = sum
                }
            }
            output.withUnsafeMutableBufferPointer { output in
                for v in 0..<8 {
                    var sum = SIMD8<Float>()
                    for y in 0..<8 { sum += cosines[v * 8 + y] * rows[y] }
                    for u in 0..<8 { output[start + v * 8 + u] = sum[u] }
                }
            }
        }
    }
}
