import Foundation
/// The XYB colour space of JPEG XL (an LMS-like opsin absorbance, then a cube root), shifted and scaled as
/// SSIMULACRA2 uses it: every component in about 0...1, and B stored as B - Y.
enum XYB {
    private static let matrix: [Float] = [
        0.30, 0.622, 0.078,
        0.23, 0.692, 0.078,
        0.24342268924547819, 0.20476744424496821, 0.55180986650955360,
    ]
    private static let bias: Float = 0.0037930732552754493
    private static let biasCubeRoot = Float(cbrt(Double(bias)))

    /// Converts `count` linear RGB samples (three planar rows) to X, Y and B-Y rows at `output`,
    /// `output + count` and `output + 2 * count`; with `lumaOnly`, only the Y row. Cost: three cube roots (a few
    /// multiplies each) per pixel, two for Y alone.
    static func convert(red: UnsafePointer<Float>, green: UnsafePointer<Float>, blue: UnsafePointer<Float>,
                        count: Int, lumaOnly: Bool = false, into output: UnsafeMutablePointer<Float>) {
        let m = matrix
        let (m00, m01, m02, m10, m11, m12, m20, m21, m22) = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
        let xRow = output, yRow = output + count, bRow = output + 2 * count
        if lumaOnly {
            for index in 0..<count {
                let r = red[index], g = green[index], b = blue[index]
                let long = cubeRoot(max(0, m00 * r + m01 * g + m02 * b + bias)) - biasCubeRoot
                let medium = cubeRoot(max(0, m10 * r + m11 * g + m12 * b + bias)) - biasCubeRoot
                yRow[index] = 0.5 * (long + medium) + 0.01
            }
            return
        }
        for index in 0..<count {
            let r = red[index], g = green[index], b = blue[index]
            let long = cubeRoot(max(0, m00 * r + m01 * g + m02 * b + bias)) - biasCubeRoot
            let medium = cubeRoot(max(0, m10 * r + m11 * g + m12 * b + bias)) - biasCubeRoot
            let short = cubeRoot(max(0, m20 * r + m21 * g + m22 * b + bias)) - biasCubeRoot
            let x = 0.5 * (long - medium), y = 0.5 * (long + medium)
            xRow[index] = x * 14 + 0.42
            yRow[index] = y + 0.01
            bRow[index] = (short - y) + 0.55
        }
    }

    /// The cube root of a value in 0...~1.01: a bit-level first guess (within 4%) and two Newton steps, within
    /// about 1e-5 relative, branch-free so the conversion loop vectorises (libm's cbrtf does not).
    @inline(__always)
    static func cubeRoot(_ value: Float) -> Float {
        var root = Float(bitPattern: value.bitPattern / 3 &+ 0x2A51_37A0)
        for _ in 0..<2 { root = (2 * root + value / (root * root)) * (1 / 3 as Float) }
        return root
    }
}
