import Foundation

/// The palette PNG (colour type 3) of an RGBA render with a SSIMULACRA2 target, when it holds the target and is
/// smaller than the truecolour PNG: the alpha outputs' counterpart of `QualitySearch` (issue 29).
///
/// The score: SSIMULACRA2 compares RGB, so both images are flattened onto black and onto white and the lower score
/// counts. Over black only the premultiplied colour shows; over white an alpha error shows too (a pixel made more
/// transparent lightens), so neither background alone would see every error the palette makes.
///
/// Cost: a quantisation (`PaletteQuantizer`), one palette encode, and, only when that is smaller, two SSIMULACRA2
/// comparisons at the output size (the second skipped when the first fails). Scoring may use half the time left,
/// like the JPEG search: past that the truecolour PNG is kept, so trying the palette never turns a render that
/// would finish into a missed deadline.
enum PalettePNG {
    struct Outcome {
        var bytes: Data
        var score: Double
    }

    /// What a try holds besides the render's buffers: the quantiser's, the expanded palette image (RGBA), both
    /// flattened images (RGB), the packed rows, and one SSIMULACRA2 comparison's working memory at a time.
    static func workingBytes(width: Int, height: Int) -> Int {
        PaletteQuantizer.workingBytes(width: width, height: height) + width * height * (4 + 3 + 3)
            + height * (width + 1) + SSIMULACRA2.workingBytes(width: width, height: height)
    }

    /// The palette PNG of `pixels` (straight RGBA) when it scores at least `target` and is smaller than
    /// `truecolourBytes`; nil otherwise, or when scoring ran out of its share of the deadline (with a warning).
    static func encode(_ pixels: PixelBuffer, target: Double, truecolourBytes: Int, iccProfile: [UInt8]?,
                       budget: WorkBudget, warnings: inout [String]) throws(ImageError) -> Outcome? {
        // SSIMULACRA2 has no scale below 8 pixels a side and scores any such candidate 100.
        guard pixels.width >= 8, pixels.height >= 8 else { return nil }
        let start = ContinuousClock.now
        var scoring = budget.halfOfTimeLeft(from: start)
        scoring.onCheck = budget.onCheck
        guard let indexed = try PaletteQuantizer.quantize(pixels, budget: budget) else { return nil }
        let bytes = try PNGEncoder.encode(indexed, iccProfile: iccProfile, budget: budget)
        guard bytes.count < truecolourBytes else { return nil }
        do throws(ImageError) {
            let score = try Self.score(indexed.expanded(), against: pixels, atLeast: target, budget: scoring)
            return score >= target ? Outcome(bytes: bytes, score: score) : nil
        } catch .deadlineExceeded {
            try budget.check()
            warnings.append("PNG palette not scored: the deadline came before the SSIMULACRA2 comparison ended")
            return nil
        }
    }

    /// The lower of the SSIMULACRA2 scores of `candidate` against `reference` (both straight RGBA) flattened onto
    /// black and onto white; the white one is not computed when the black one is already below `target`.
    static func score(_ candidate: PixelBuffer, against reference: PixelBuffer, atLeast target: Double = 0,
                      budget: WorkBudget? = nil) throws(ImageError) -> Double {
        var lowest = Double.infinity
        for background in [ImageVariant.Background(red: 0, green: 0, blue: 0), .white] {
            let metric = try SSIMULACRA2(reference: reference.flattened(onto: background), budget: budget)
            lowest = min(lowest, try metric.score(candidate.flattened(onto: background), budget: budget))
            if lowest < target { break }
        }
        return lowest
    }
}
