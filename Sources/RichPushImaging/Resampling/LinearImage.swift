import Foundation
import RichPushCore
/// Planar linear-light RGB floats, for SSIMULACRA2's lower scales: each is the one above it halved in linear
/// light, as the metric specifies (gamma-encoded averaging would darken edges and skew the score).
struct LinearImage: Sendable {
    let width: Int
    let height: Int
    /// Red, then green, then blue planes, `width * height` each.
    var samples: [Float]

    /// sRGB byte to linear light (IEC 61966-2-1), one entry per byte value.
    static let fromSRGB: [Float] = (0..<256).map { value in
        let encoded = Double(value) / 255
        return Float(encoded <= 0.04045 ? encoded / 12.92 : pow((encoded + 0.055) / 1.055, 2.4))
    }

    /// Fills `red`, `green`, `blue` (each `width` floats) with row `y` of an RGB pixel buffer in linear light.
    static func linearRow(of pixels: PixelBuffer, y: Int, red: UnsafeMutablePointer<Float>,
                          green: UnsafeMutablePointer<Float>, blue: UnsafeMutablePointer<Float>) {
        fromSRGB.withUnsafeBufferPointer { table in
            pixels.pixels.withUnsafeBufferPointer { bytes in
                let row = bytes.baseAddress! + y * pixels.rowBytes
                for x in 0..<pixels.width {
                    red[x] = table[Int(row[x * 3])]
                    green[x] = table[Int(row[x * 3 + 1])]
                    blue[x] = table[Int(row[x * 3 + 2])]
                }
            }
        }
    }

    /// Row `y` of this image, as three plane pointers.
    func withRow<Result>(_ y: Int, _ body: (UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>) -> Result) -> Result {
        samples.withUnsafeBufferPointer { samples in
            let plane = width * height, start = samples.baseAddress! + y * width
            return body(start, start + plane, start + 2 * plane)
        }
    }

    /// `pixels` (RGB bytes) halved: each output sample is the mean of a 2x2 block, the last row and column
    /// repeated when a side is odd. Cost: one pass over the pixels.
    init(halving pixels: PixelBuffer) {
        let sourceWidth = pixels.width, sourceHeight = pixels.height
        var rows = [Float](repeating: 0, count: sourceWidth * 6)
        self.init(halvingWidth: sourceWidth, height: sourceHeight) { y, output in
            rows.withUnsafeMutableBufferPointer { rows in
                let base = rows.baseAddress!
                for (offset, sourceY) in [2 * y, min(2 * y + 1, sourceHeight - 1)].enumerated() {
                    let row = base + offset * 3 * sourceWidth
                    Self.linearRow(of: pixels, y: sourceY, red: row, green: row + sourceWidth, blue: row + 2 * sourceWidth)
                }
                output(UnsafePointer(base), UnsafePointer(base + 3 * sourceWidth))
            }
        }
    }

    /// This image halved the same way.
    func halved() -> LinearImage {
        let plane = width * height
        return samples.withUnsafeBufferPointer { samples in
            var rows = [Float](repeating: 0, count: width * 6)
            return LinearImage(halvingWidth: width, height: height) { y, output in
                rows.withUnsafeMutableBufferPointer { rows in
                    let base = rows.baseAddress!
                    for (offset, sourceY) in [2 * y, min(2 * y + 1, height - 1)].enumerated() {
                        for channel in 0..<3 {
                            (base + (offset * 3 + channel) * width).update(
                                from: samples.baseAddress! + channel * plane + sourceY * width, count: width)
                        }
                    }
                    output(UnsafePointer(base), UnsafePointer(base + 3 * width))
                }
            }
        }
    }

    /// The shared halving: `sourceRows(y, output)` hands `output` the two source rows (planar RGB, `3 * width`
    /// floats each) for output row `y`.
    private init(halvingWidth sourceWidth: Int, height sourceHeight: Int,
                 sourceRows: (Int, (UnsafePointer<Float>, UnsafePointer<Float>) -> Void) -> Void) {
        let outputWidth = (sourceWidth + 1) / 2, outputHeight = (sourceHeight + 1) / 2
        var samples = [Float](repeating: 0, count: outputWidth * outputHeight * 3)
        let plane = outputWidth * outputHeight, lastColumn = sourceWidth - 1
        samples.withUnsafeMutableBufferPointer { samples in
            for y in 0..<outputHeight {
                sourceRows(y) { top, bottom in
                    for channel in 0..<3 {
                        let upper = top + channel * sourceWidth, lower = bottom + channel * sourceWidth
                        let output = samples.baseAddress! + channel * plane + y * outputWidth
                        for x in 0..<outputWidth {
                            let left = 2 * x, right = min(2 * x + 1, lastColumn)
                            output[x] = (upper[left] + upper[right] + lower[left] + lower[right]) * 0.25
                        }
                    }
                }
            }
        }
        width = outputWidth
        height = outputHeight
        self.samples = samples
    }
}
