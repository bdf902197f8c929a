import Foundation

/// Precomputed Lanczos3 weights for one axis: for each output pixel, a first source index and `taps`
/// normalised Float weights. Float rather than fixed point because baseline x86-64 (SSE2) has no packed 32-bit
/// integer multiply, while packed float multiply-add is full speed everywhere.
struct ResamplingKernel {
    var starts: [Int32]
    var counts: [Int32]
    var weights: [Float]
    /// Stride of `weights` per output pixel.
    var maximumTaps: Int

    var firstSourceIndex: Int { Int(starts.min() ?? 0) }
    var endSourceIndex: Int { zip(starts, counts).map { Int($0 + $1) }.max() ?? 0 }

    static func lanczos3(_ x: Double) -> Double {
        if x == 0 { return 1 }
        guard abs(x) < 3 else { return 0 }
        let pix = Double.pi * x
        return 3 * sin(pix) * sin(pix / 3) / (pix * pix)
    }

    /// Float weights for output pixel `index` (shared with tests' reference resampler).
    static func floatWeights(index: Int, sourceSize: Int, offset: Double, extent: Double, outputSize: Int) -> (start: Int, weights: [Double]) {
        let scale = extent / Double(outputSize)
        let filterScale = max(scale, 1)
        let support = 3 * filterScale
        let center = offset + (Double(index) + 0.5) * scale
        let left = max(0, Int((center - support).rounded(.down)))
        let right = min(sourceSize, Int((center + support).rounded(.up)))
        guard right > left else { return (min(max(0, Int(center)), sourceSize - 1), [1]) }
        var weights = (left..<right).map { lanczos3((Double($0) + 0.5 - center) / filterScale) }
        let total = weights.reduce(0, +)
        if total != 0 { weights = weights.map { $0 / total } } else { weights = weights.map { _ in 1 / Double(weights.count) } }
        return (left, weights)
    }

    /// The most source pixels one output pixel reads when `extent` source pixels become `outputSize`: the
    /// Lanczos3 support on both sides, plus one at each end for rounding.
    static func maximumTaps(extent: Double, outputSize: Int) -> Int {
        let support = 3 * max(extent / Double(outputSize), 1)
        return Int((2 * support).rounded(.up)) + 2
    }

    init(sourceSize: Int, offset: Double, extent: Double, outputSize: Int) {
        maximumTaps = Self.maximumTaps(extent: extent, outputSize: outputSize)
        starts = []
        counts = []
        starts.reserveCapacity(outputSize)
        counts.reserveCapacity(outputSize)
        weights = [Float](repeating: 0, count: outputSize * maximumTaps)
        for index in 0..<outputSize {
            var (start, floating) = Self.floatWeights(index: index, sourceSize: sourceSize, offset: offset, extent: extent, outputSize: outputSize)
            // Trim zero tails (exact integer positions at scale 1 give a single tap).
            while floating.count > 1, abs(floating.last ?? 0) < 1e-9 { floating.removeLast() }
            while floating.count > 1, abs(floating.first ?? 0) < 1e-9 { floating.removeFirst(); start += 1 }
            let count = min(floating.count, maximumTaps)
            starts.append(Int32(start))
            counts.append(Int32(count))
            for tap in 0..<count { weights[index * maximumTaps + tap] = Float(floating[tap]) }
        }
    }
}
