import RichPushCore
/// One row of SSIMULACRA2's two error maps, summed eight pixels at a time.
enum SSIMULACRA2MapSums {
    private static let c2: Float = 0.0009

    /// The row's sums of: the SSIM error `d` and `d^4`; the edge-difference artifact and its 4th power; the
    /// detail lost and its 4th power (lanes 0...5). `mean*`, `square*` and `product` are the blurred image,
    /// squares and product; `image*` the unblurred XYB rows.
    static func row(width: Int, mean1: UnsafePointer<Float>, mean2: UnsafePointer<Float>,
                    square1: UnsafePointer<Float>, square2: UnsafePointer<Float>, product: UnsafePointer<Float>,
                    image1: UnsafePointer<Float>, image2: UnsafePointer<Float>) -> SIMD8<Double> {
        typealias Lanes = SIMD8<Float>
        @inline(__always) func load(_ pointer: UnsafePointer<Float>, _ x: Int) -> Lanes {
            UnsafeRawPointer(pointer + x).loadUnaligned(as: Lanes.self)
        }
        // Sign-bit arithmetic: the generic pointwiseMax is not specialised here, and comparison masks are built
        // lane by lane; clearing the sign bit is one and, and (v + |v|) / 2 is exactly max(v, 0).
        @inline(__always) func magnitude(_ value: Lanes) -> Lanes {
            unsafeBitCast(unsafeBitCast(value, to: SIMD8<UInt32>.self) & 0x7FFF_FFFF, to: Lanes.self)
        }
        @inline(__always) func positive(_ value: Lanes) -> Lanes { (value + magnitude(value)) * 0.5 }
        var ssim = Lanes(), ssim4 = Lanes(), artifact = Lanes(), artifact4 = Lanes(), lost = Lanes(), lost4 = Lanes()
        var x = 0
        while x + 8 <= width {
            let m1 = load(mean1, x), m2 = load(mean2, x)
            let difference = m1 - m2
            let numeratorM = 1 - difference * difference
            let numeratorS = 2 * (load(product, x) - m1 * m2) + c2
            let denominator = (load(square1, x) - m1 * m1) + (load(square2, x) - m2 * m2) + c2
            let d = positive(1 - numeratorM * numeratorS / denominator)
            ssim += d
            let d2 = d * d
            ssim4 += d2 * d2
            let edge1 = load(image1, x) - m1, edge2 = load(image2, x) - m2
            let ratio = (1 + magnitude(edge2)) / (1 + magnitude(edge1)) - 1
            let gained = positive(ratio), missing = positive(-ratio)
            artifact += gained
            let g2 = gained * gained
            artifact4 += g2 * g2
            lost += missing
            let l2 = missing * missing
            lost4 += l2 * l2
            x += 8
        }
        var sums = SIMD8<Double>(Double(ssim.sum()), Double(ssim4.sum()), Double(artifact.sum()),
                                 Double(artifact4.sum()), Double(lost.sum()), Double(lost4.sum()), 0, 0)
        while x < width {
            let m1 = mean1[x], m2 = mean2[x]
            let numeratorM = 1 - (m1 - m2) * (m1 - m2)
            let numeratorS = 2 * (product[x] - m1 * m2) + c2
            let denominator = (square1[x] - m1 * m1) + (square2[x] - m2 * m2) + c2
            let d = Double(max(0, 1 - numeratorM * numeratorS / denominator))
            let ratio = Double((1 + abs(image2[x] - m2)) / (1 + abs(image1[x] - m1)) - 1)
            let gained = max(0, ratio), missing = max(0, -ratio)
            sums += SIMD8<Double>(d, d * d * d * d, gained, gained * gained * gained * gained,
                                  missing, missing * missing * missing * missing, 0, 0)
            x += 1
        }
        return sums
    }
}
