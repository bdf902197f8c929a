import Foundation
import RichPushCore

/// Perceptual scores of encoded images, for benchmarks and tools; the render scores its own pixels directly.
package enum PerceptualScore {
    /// SSIMULACRA2 of `candidate` against `reference`: two encoded images (JPEG, PNG or WebP) of one size, decoded
    /// at full size, alpha flattened onto mid grey (the metric's default background).
    ///
    /// Cost: both decodes and one SSIMULACRA2 comparison (see `SSIMULACRA2`).
    package static func ssimulacra2(reference: Data, candidate: Data) throws(ImageError) -> Double {
        let budget = WorkBudget(deadline: .now + .seconds(600))
        return try SSIMULACRA2(reference: decodeOpaque(reference, budget: budget)).score(decodeOpaque(candidate, budget: budget))
    }

    /// The score of one prepared reference against many candidates, timed: returns the scores and the mean
    /// seconds per comparison (the reference's preparation is not counted), for `richpush-bench`.
    package static func timedSSIMULACRA2(reference: Data, candidates: [Data], repeats: Int) throws(ImageError) -> (scores: [Double], secondsPerScore: Double) {
        let budget = WorkBudget(deadline: .now + .seconds(3600))
        let metric = try SSIMULACRA2(reference: decodeOpaque(reference, budget: budget))
        var pixels: [PixelBuffer] = []
        for candidate in candidates { pixels.append(try decodeOpaque(candidate, budget: budget)) }
        var scores: [Double] = []
        let clock = ContinuousClock(), start = clock.now
        for _ in 0..<max(1, repeats) {
            scores = []
            for candidate in pixels { scores.append(try metric.score(candidate)) }
        }
        let elapsed = clock.now - start
        return (scores, elapsed.timeInterval / Double(max(1, repeats) * max(1, pixels.count)))
    }

    static func decodeOpaque(_ bytes: Data, budget: WorkBudget) throws(ImageError) -> PixelBuffer {
        let pixels: PixelBuffer
        switch try ImageFormat(sniffing: bytes) {
        case .jpeg: pixels = try JPEGDecoder.decode(bytes, budget: budget).pixels
        case .png: pixels = try PNGDecoder.decode(bytes, limits: ImageLimits(), budget: budget).pixels
        case .webp: pixels = try WebPDecoder.decode(bytes, layout: .rgba, budget: budget).pixels
        case let other: throw .unsupportedFormat(detected: other.rawValue)
        }
        return pixels.flattened(onto: .metricGrey)
    }
}
