import Foundation

/// Finds the lowest WebP quality whose output reaches a SSIMULACRA2 target, by bisection over
/// `minimumQuality...100` from the variant's quality: libwebp's quality scale is steady enough (its score rises with
/// quality, unlike a JPEG's with its tables and chroma) that halving the bracket converges in a few steps.
///
/// Like `QualitySearch`, it never publishes below the target when a passing quality fits the byte budget (a quality
/// over the budget counts as too high; when none passes, the highest-scoring one that fits is taken, with a
/// warning), stops at `closeEnough` above the target or after `maximumEvaluations`, and scores in at most half the
/// time left when it starts, so the search never turns a render that would finish into a missed deadline.
///
/// Cost per step: one WebP encode and decode and one SSIMULACRA2 comparison at the output size.
struct WebPQualitySearch {
    struct Outcome {
        var bytes: Data
        var quality: Int
        var score: Double?
    }

    static let maximumEvaluations = 6

    let pixels: PixelBuffer
    let variant: ImageVariant
    let target: Double
    let iccProfile: [UInt8]?
    let budget: WorkBudget

    func run(warnings: inout [String]) throws(ImageError) -> Outcome {
        let scoring = budget.halfOfTimeLeft(from: .now)
        // Translucent pixels are compared as a phone would show them on a neutral background.
        let metric = try SSIMULACRA2(reference: Self.opaque(pixels), budget: budget)
        var low = min(100, max(0, variant.minimumQuality)), high = 100
        var quality = min(high, max(low, variant.quality))
        var best: Outcome?, fallback: Outcome?, smallestOverBudget: Data?
        for _ in 0..<Self.maximumEvaluations where low <= high {
            let bytes = try WebPEncoder.encode(pixels, quality: quality, iccProfile: iccProfile, budget: budget)
            if let limit = variant.maximumBytes, bytes.count > limit {
                smallestOverBudget = bytes
                high = quality - 1
            } else {
                let score: Double
                do throws(ImageError) {
                    let decoded = try WebPDecoder.decode(bytes, layout: pixels.channels == 4 ? .rgba : .rgb, budget: scoring)
                    score = try metric.score(Self.opaque(decoded.pixels), budget: scoring)
                } catch .deadlineExceeded where ContinuousClock.now < budget.deadline {
                    // Scoring's share of the time is spent: the best so far, or this candidate unscored.
                    let chosen = best ?? fallback ?? Outcome(bytes: bytes, quality: quality, score: nil)
                    warnings.append("the quality search stopped for the deadline at quality \(chosen.quality)")
                    return chosen
                }
                let candidate = Outcome(bytes: bytes, quality: quality, score: score)
                if score >= target {
                    best = candidate
                    if score - target <= QualitySearch.closeEnough { break }
                    high = quality - 1
                } else {
                    if score > (fallback?.score ?? -.infinity) { fallback = candidate }
                    low = quality + 1
                }
            }
            quality = (low + high) / 2
        }
        if let best { return best }
        if let fallback {
            warnings.append("no WebP quality within the byte budget reached SSIMULACRA2 \(target); the best fitting one, quality \(fallback.quality), was taken")
            return fallback
        }
        throw .outputTooLarge(bytes: smallestOverBudget?.count ?? 0, limit: variant.maximumBytes ?? 0)
    }

    private static func opaque(_ pixels: PixelBuffer) -> PixelBuffer {
        pixels.channels == 4 ? pixels.flattened(onto: .metricGrey) : pixels
    }
}
