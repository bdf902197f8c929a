/// One row of SSIMULACRA2's two error maps and their sums.
///
/// Plain scalar loops on purpose: the per-pixel pass is elementwise and the sums keep eight running totals, which
/// the optimiser turns into vector code; `SIMD8` operators would be as fast optimised but are generic calls in
/// debug builds (far slower there: docs/benchmarks.md, "SSIMULACRA2"), which the command-line tests run.
enum SSIMULACRA2MapSums {
    private static let c2: Float = 0.0009

    /// The row's sums of: the SSIM error `d` and `d^4`; the edge-difference artifact and its 4th power; the
    /// detail lost and its 4th power (lanes 0...5). `mean*` are the blurred images; `moments` the blurred squares
    /// and product, nil when the SSIM map is not wanted (its lanes stay zero); `image*` the unblurred XYB rows;
    /// `scratch` holds `3 * width` floats.
    static func row(width: Int, mean1: UnsafePointer<Float>, mean2: UnsafePointer<Float>,
                    moments: (square1: UnsafePointer<Float>, square2: UnsafePointer<Float>, product: UnsafePointer<Float>)?,
                    image1: UnsafePointer<Float>, image2: UnsafePointer<Float>,
                    scratch: UnsafeMutablePointer<Float>) -> SIMD8<Double> {
        let ssim = scratch, artifact = scratch + width, lost = scratch + 2 * width
        var ssimSums = (0.0, 0.0)
        if let (square1, square2, product) = moments {
            for x in 0..<width {
                let m1 = mean1[x], m2 = mean2[x]
                let difference = m1 - m2
                let numeratorM = 1 - difference * difference
                let numeratorS = 2 * (product[x] - m1 * m2) + c2
                let denominator = (square1[x] - m1 * m1) + (square2[x] - m2 * m2) + c2
                let d = 1 - numeratorM * numeratorS / denominator
                ssim[x] = d > 0 ? d : 0
            }
            ssimSums = sums(ssim, count: width)
        }
        for x in 0..<width {
            let m1 = mean1[x], m2 = mean2[x]
            let edge1 = image1[x] - m1, edge2 = image2[x] - m2
            let ratio = (1 + (edge2 < 0 ? -edge2 : edge2)) / (1 + (edge1 < 0 ? -edge1 : edge1)) - 1
            artifact[x] = ratio > 0 ? ratio : 0
            lost[x] = ratio < 0 ? -ratio : 0
        }
        let (ssimSum, ssimFourth) = ssimSums
        let (artifactSum, artifactFourth) = sums(artifact, count: width)
        let (lostSum, lostFourth) = sums(lost, count: width)
        return SIMD8<Double>(ssimSum, ssimFourth, artifactSum, artifactFourth, lostSum, lostFourth, 0, 0)
    }

    /// The sum of `values` and of their 4th powers, in eight running totals per sum.
    private static func sums(_ values: UnsafePointer<Float>, count: Int) -> (Double, Double) {
        var plain: (Float, Float, Float, Float, Float, Float, Float, Float) = (0, 0, 0, 0, 0, 0, 0, 0)
        var fourth: (Float, Float, Float, Float, Float, Float, Float, Float) = (0, 0, 0, 0, 0, 0, 0, 0)
        @inline(__always) func quartic(_ value: Float) -> Float { let square = value * value; return square * square }
        var x = 0
        while x + 8 <= count {
            let v = values + x
            plain.0 += v[0]; plain.1 += v[1]; plain.2 += v[2]; plain.3 += v[3]
            plain.4 += v[4]; plain.5 += v[5]; plain.6 += v[6]; plain.7 += v[7]
            fourth.0 += quartic(v[0]); fourth.1 += quartic(v[1]); fourth.2 += quartic(v[2]); fourth.3 += quartic(v[3])
            fourth.4 += quartic(v[4]); fourth.5 += quartic(v[5]); fourth.6 += quartic(v[6]); fourth.7 += quartic(v[7])
            x += 8
        }
        var total = Double(plain.0 + plain.1 + plain.2 + plain.3 + plain.4 + plain.5 + plain.6 + plain.7)
        var totalFourth = Double(fourth.0 + fourth.1 + fourth.2 + fourth.3 + fourth.4 + fourth.5 + fourth.6 + fourth.7)
        while x < count {
            total += Double(values[x])
            totalFourth += Double(quartic(values[x]))
            x += 1
        }
        return (total, totalFourth)
    }
}
