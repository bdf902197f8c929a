import Foundation

/// Our own JPEG front end: an RGB image converted once to the YCbCr planes a JPEG codes, and for each encode their
/// DCT, with `Deringing` on the blocks partly at the image's background extremes, quantised (to the nearest, or by
/// `TrellisQuantizer`) for libjpeg to entropy-code. libjpeg-turbo takes 8-bit samples and has no hook between its
/// DCT and its entropy coder, and deringing needs samples beyond white and black and trellis the unquantised
/// coefficients: this is the front end that lets them in.
///
/// The conversion is libjpeg's: its fixed-point JFIF colour conversion, its 2x2 box downsampling at 4:2:0 (with its
/// alternating rounding bias) and edge replication to whole MCUs. The DCT is an exact float one where libjpeg's is
/// integer, so with neither it gives libjpeg's bytes within 2% and its pixels within half a level on average, which
/// `DeringingTests` checks (docs/benchmarks.md, "Deringing").
///
/// Cost: one pass of colour conversion, then per encode a DCT of every block (128 eight-wide multiply-adds each), as
/// libjpeg's own encode does, and the trellis when asked; `workingBytes` while it lives.
struct JPEGTransform: Sendable {
    /// One component: its samples (0-255, padded to whole MCUs) and the blocks `Deringing` changes.
    struct Plane: Sendable {
        /// The blocks that hold image, each way; the padding beyond them is libjpeg's to fill.
        var blocksWide: Int
        var blocksHigh: Int
        /// Samples per row.
        var rowLength: Int
        var samples: [UInt8]
        /// The indices, in order, of the blocks partly at a `deringing` extreme.
        var deringedBlocks: [Int]
    }

    let width: Int
    let height: Int
    let chroma: JPEGEncoder.Chroma
    /// Y, Cb, Cr.
    let planes: [Plane]
    /// The extremes whose runs each encode deringes; none, with rounding, gives libjpeg's own coefficients.
    let deringing: Deringing.Extremes

    /// Zig-zag order, the natural-order index of each position: the order the entropy coder reads a block in.
    static let zigzag: [Int] = [
        0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14,
        21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53,
        60, 61, 54, 47, 55, 62, 63,
    ]

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
        var luma = [UInt8](repeating: 0, count: paddedWidth * paddedHeight)
        var blue = [UInt8](repeating: 0, count: paddedWidth * paddedHeight / (chromaScale * chromaScale))
        var red = blue
        try Self.convert(image, paddedWidth: paddedWidth, paddedHeight: paddedHeight, chromaScale: chromaScale,
                         luma: &luma, blue: &blue, red: &red, budget: budget)
        var planes = [Plane(blocksWide: (width + 7) / 8, blocksHigh: (height + 7) / 8, rowLength: paddedWidth,
                            samples: luma, deringedBlocks: [])]
        for samples in [blue, red] {
            planes.append(Plane(blocksWide: (width + unit - 1) / unit, blocksHigh: (height + unit - 1) / unit,
                                rowLength: paddedWidth / chromaScale, samples: samples, deringedBlocks: []))
        }
        if !deringing.isEmpty {
            for index in planes.indices { planes[index].deringedBlocks = Self.blocks(of: planes[index], partlyAt: deringing) }
        }
        self.planes = planes
    }

    /// Bytes held at most while a transform of this size lives and one encode runs, for the render's memory
    /// budget: at 4:4:4, the larger layout, three samples a pixel, then the quantised Int16 coefficients and
    /// libjpeg's copy of them.
    static func workingBytes(width: Int, height: Int) -> Int {
        let padded = (width + 15) / 16 * 16 * ((height + 15) / 16 * 16)
        return padded * 3 * (1 + 2 * MemoryLayout<Int16>.size)
    }

    /// The quantised coefficients for libjpeg's tables `quantization` (128 values, luma then chroma, natural order):
    /// each block transformed (deringed first when it is partly at a `deringing` extreme), each coefficient divided
    /// by its step and rounded to the nearest, or, given the AC code lengths `trellisCodeLengths` (512, luma then
    /// chroma), chosen by a `TrellisQuantizer`.
    func quantized(_ quantization: [UInt16], trellisCodeLengths: [UInt8]?, budget: WorkBudget) throws(ImageError) -> [[Int16]] {
        var quantized: [[Int16]] = []
        for (index, plane) in planes.enumerated() {
            let table = Array(quantization[(index == 0 ? 0 : 64)..<(index == 0 ? 64 : 128)])
            let reciprocals = table.map { 1 / Float($0) }
            let quantizer = trellisCodeLengths.map { TrellisQuantizer(codeLengths: Array($0[(index == 0 ? 0 : 256)..<(index == 0 ? 256 : 512)])) }
            var output = [Int16](repeating: 0, count: plane.blocksWide * plane.blocksHigh * 64)
            var deringed = plane.deringedBlocks.makeIterator(), nextDeringed = deringed.next()
            var block = [Float](repeating: 0, count: 64), transformed = block
            for blockRow in 0..<plane.blocksHigh {
                if blockRow % 16 == 0 { try budget.check() }
                for blockColumn in 0..<plane.blocksWide {
                    let blockIndex = blockRow * plane.blocksWide + blockColumn
                    Self.load(plane, blockRow: blockRow, blockColumn: blockColumn, into: &block)
                    if blockIndex == nextDeringed {
                        block.withUnsafeMutableBufferPointer {
                            Deringing.apply(to: $0, dcStep: Int(table[0]), extremes: deringing)
                        }
                        nextDeringed = deringed.next()
                    }
                    Self.transformBlock(block, into: &transformed)
                    output.withUnsafeMutableBufferPointer { output in
                        reciprocals.withUnsafeBufferPointer { reciprocals in
                            if let quantizer {
                                transformed.withUnsafeBufferPointer { transformed in
                                    quantizer.quantize(transformed, reciprocals: reciprocals,
                                                       into: UnsafeMutableBufferPointer(rebasing: output[(blockIndex * 64)..<(blockIndex * 64 + 64)]))
                                }
                            } else {
                                for k in 0..<64 { output[blockIndex * 64 + k] = Self.rounded(transformed[k] * reciprocals[k]) }
                            }
                        }
                    }
                }
            }
            quantized.append(output)
        }
        return quantized
    }

    /// To the nearest, halves away from zero as libjpeg's quantiser rounds; by truncation, which vectorises where
    /// `rounded()` is a library call per coefficient.
    @inline(__always)
    static func rounded(_ steps: Float) -> Int16 {
        Int16(clamping: Int32(steps + (steps < 0 ? -0.5 : 0.5)))
    }

    /// One block's 64 samples, level-shifted (minus 128) as the DCT takes them, in natural order.
    @inline(__always)
    private static func load(_ plane: Plane, blockRow: Int, blockColumn: Int, into block: inout [Float]) {
        let origin = blockRow * 8 * plane.rowLength + blockColumn * 8
        plane.samples.withUnsafeBufferPointer { samples in
            block.withUnsafeMutableBufferPointer { block in
                for y in 0..<8 {
                    for x in 0..<8 { block[y * 8 + x] = Float(samples[origin + y * plane.rowLength + x]) - 128 }
                }
            }
        }
    }

    /// The indices of `plane`'s blocks that are partly at one of `extremes`.
    private static func blocks(of plane: Plane, partlyAt extremes: Deringing.Extremes) -> [Int] {
        var indices: [Int] = []
        var block = [Float](repeating: 0, count: 64)
        for blockRow in 0..<plane.blocksHigh {
            for blockColumn in 0..<plane.blocksWide {
                load(plane, blockRow: blockRow, blockColumn: blockColumn, into: &block)
                if block.withUnsafeBufferPointer({ Deringing.isPartly($0, at: extremes) }) {
                    indices.append(blockRow * plane.blocksWide + blockColumn)
                }
            }
        }
        return indices
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
    /// the last column and row into the padding as libjpeg does.
    private static func convert(_ image: PixelBuffer, paddedWidth: Int, paddedHeight: Int, chromaScale: Int,
                                luma: inout [UInt8], blue: inout [UInt8], red: inout [UInt8],
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
                        luma[y * paddedWidth + x] = UInt8(Self.luma(red: r, green: g, blue: b))
                        blueRows[rowInGroup * paddedWidth + x] = (bb * b - rb * r - gb * g + chromaOffset + half - 1) >> 16
                        redRows[rowInGroup * paddedWidth + x] = (bb * r - gr * g - br * b + chromaOffset + half - 1) >> 16
                    }
                }
            }
            let row = group * paddedWidth / chromaScale
            guard chromaScale == 2 else {
                for x in 0..<paddedWidth {
                    blue[row + x] = UInt8(blueRows[x])
                    red[row + x] = UInt8(redRows[x])
                }
                continue
            }
            // h2v2_downsample: the bias alternates 1, 2 along the row so that rounding does not drift.
            for x in 0..<(paddedWidth / 2) {
                let bias = Int32(1 + (x & 1))
                let a = 2 * x, b = 2 * x + 1, c = paddedWidth + 2 * x, d = paddedWidth + 2 * x + 1
                blue[row + x] = UInt8((blueRows[a] + blueRows[b] + blueRows[c] + blueRows[d] + bias) >> 2)
                red[row + x] = UInt8((redRows[a] + redRows[b] + redRows[c] + redRows[d] + bias) >> 2)
            }
        }
    }

    /// cos((2x + 1)u pi / 16) scaled so that the 2-D transform is JPEG's (orthonormal) DCT: row u, column x.
    private static let cosines: [Float] = (0..<64).map { index in
        let u = index / 8, x = index % 8
        let scale = u == 0 ? (1.0 / 8).squareRoot() : (2.0 / 8).squareRoot()
        return Float(scale * cos(Double((2 * x + 1) * u) * Double.pi / 16))
    }

    /// The cosines by column: `cosineColumns[x][u]` is `cosines[u * 8 + x]`, so that one row's 1-D transform is eight
    /// vector multiply-adds.
    private static let cosineColumns: [SIMD8<Float>] = (0..<8).map { x in
        SIMD8<Float>((0..<8).map { u in cosines[u * 8 + x] })
    }

    /// The 8x8 DCT of a block of 64 samples in natural order: rows, then columns, each as eight-wide vector
    /// multiply-adds (128 a block).
    private static func transformBlock(_ block: [Float], into output: inout [Float]) {
        let columns = cosineColumns, cosines = self.cosines
        withUnsafeTemporaryAllocation(of: SIMD8<Float>.self, capacity: 8) { rows in
            block.withUnsafeBufferPointer { block in
                // rows[y][u]: row y's 1-D transform.
                for y in 0..<8 {
                    var sum = SIMD8<Float>()
                    for x in 0..<8 { sum += block[y * 8 + x] * columns[x] }
                    rows[y] = sum
                }
            }
            output.withUnsafeMutableBufferPointer { output in
                for v in 0..<8 {
                    var sum = SIMD8<Float>()
                    for y in 0..<8 { sum += cosines[v * 8 + y] * rows[y] }
                    for u in 0..<8 { output[v * 8 + u] = sum[u] }
                }
            }
        }
    }
}
