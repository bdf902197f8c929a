import Foundation
import RichPushCore

/// Finds, per image, the lowest JPEG quality whose output reaches a SSIMULACRA2 target: the smallest file that
/// still looks right, instead of one quality for easy and hard images alike.
///
/// It brackets from the variant's quality (the first guess): each step encodes, decodes and scores one quality,
/// then moves by the score's distance from the target times the quality-per-point slope (`firstSlope` for the way
/// the first step moves, then measured from the last two scores), never outside the bracket of the highest failing
/// and lowest passing quality. It stops when a pass is within `closeEnough` of the target (another step would save a
/// few hundred bytes for a whole comparison's time), when the bracket is closed, after `maximumEvaluations`, or when
/// the deadline leaves less than two more steps (then the best so far is taken). Scoring may use half the time left
/// when the search starts: past that, a comparison in progress is abandoned and the best so far is taken, or the
/// first guess unscored, so the search never turns a render that would finish into a missed deadline.
///
/// Trellis: the 4:2:0 candidates of an image that is not smooth are trellis-quantised (`TrellisQuantizer`, through
/// `ImageEncoding`'s front end), which reaches a score in fewer bytes at a quality `trellisQualityRise` higher.
///
/// Chroma and tables: the search runs at 4:2:0 on the tables `JPEGQuantization.searched` names, the tuned ones first;
/// a smooth image (`isSmooth`) is searched on the standard ones too, from the quality the first search found, and
/// the smaller passing file kept. When 4:2:0 cannot reach the target (quality 100 fails, or the slope puts the target
/// beyond it), or needs `fullChromaQuality` or more (text and sharp coloured edges, which 4:2:0 smears at any
/// quality), it searches again at 4:4:4 and keeps the smaller passing file (docs/benchmarks.md, "Better bytes at the
/// same score"). These later searches do not score a candidate that is no smaller than the pass already found.
///
/// The byte budget caps it: a quality over the budget counts as too high, and when no passing quality fits, the
/// highest-scoring one that fits is taken, with a warning.
///
/// Cost per step: one JPEG encode, one decode and one SSIMULACRA2 comparison at the output size, about a whole fixed
/// render of a photograph (docs/benchmarks.md, "Quality by target"); usually two or three steps, up to twice
/// `maximumEvaluations` with 4:4:4 or a smooth image's second tables.
struct QualitySearch {
    struct Outcome {
        var bytes: Data
        var quality: Int
        var chroma: JPEGEncoder.Chroma
        var quantization: JPEGQuantization
        /// Whether the AC values were chosen by `TrellisQuantizer` rather than rounded (`trellises`).
        var trellis: Bool
        var score: Double?
    }

    static let maximumEvaluations = 4
    /// A passing score this close to the target ends the search.
    static let closeEnough = 1.0
    /// Aim this far above the target, so the step after a pass tends to land on a pass, not just below.
    static let aimMargin = 0.25
    /// A 4:2:0 result at this quality or above is tried at 4:4:4 too.
    static let fullChromaQuality = 90
    /// How many qualities higher a trellis-quantised candidate reaches the score of a rounded one: the median over
    /// the 4:2:0 images of "Trellis quantisation" in docs/benchmarks.md.
    static let trellisQualityRise = 3

    /// Whether the candidates at `chroma` are trellis-quantised: at 4:2:0, where it saves bytes at equal score,
    /// unless the image is smooth. Not at 4:4:4 (it saves little there, for more steps), nor for a smooth image, whose
    /// score curve is searched on the standard tables for being steady, and which trellis makes jump (a blurred noise
    /// image scored lower at a higher quality: docs/benchmarks.md, "Trellis quantisation").
    func trellises(_ chroma: JPEGEncoder.Chroma) -> Bool {
        chroma == .halved && !smooth
    }

    /// Quality steps per SSIMULACRA2 point, the slope a search takes from its first step until two scores measure
    /// it. The score climbs faster above the first guess than it falls below it, so it depends on the way the search
    /// moves: up (`rising`) for the text, line art and noise that fall short, down for the photographs and gradients
    /// that pass by several points; and at 4:4:4, where text and line art are searched, it moves about a point per
    /// 1.4 qualities (docs/benchmarks.md, "The search's first step").
    static func firstSlope(_ chroma: JPEGEncoder.Chroma, tables: JPEGQuantization, rising: Bool) -> Double {
        switch (chroma, tables, rising) {
        case (.full, _, true): 0.8
        case (.full, _, false): 1.4
        case (.halved, .standard, true): 1.5
        case (.halved, .standard, false): 2.5
        case (.halved, .perceptual, true): 1.3
        case (.halved, .perceptual, false): 4.5
        }
    }

    /// The most quality steps per point a rising first step at 4:2:0 is taken to need when the search judges whether
    /// the target lies below quality 100: beyond it at this slope, the search goes to 4:4:4 at once.
    static func steepestRisingSlope(_ tables: JPEGQuantization) -> Double {
        switch tables {
        case .standard: 2.5
        case .perceptual: 3.0
        }
    }

    /// A quality on the variant's scale (the standard tables, rounded) as the quality on `tables` at `chroma` that
    /// scores about the same.
    func quality(matchingStandard quality: Int, on tables: JPEGQuantization, at chroma: JPEGEncoder.Chroma) -> Int {
        min(100, tables.quality(matchingStandard: quality) + (trellises(chroma) ? Self.trellisQualityRise : 0))
    }

    /// `outcome`'s quality on the variant's scale: the inverse of `quality(matchingStandard:on:at:)`.
    static func standardQuality(of outcome: Outcome) -> Int {
        outcome.quality + outcome.quantization.qualityBelowStandard - (outcome.trellis ? trellisQualityRise : 0)
    }

    /// What a search holds besides the render's own buffers: the metric's working memory, one decoded candidate
    /// (the encoded candidates are bounded by the byte budget, like the output) and the `JPEGTransform` its
    /// trellis-quantised or deringed candidates go through.
    static func workingBytes(width: Int, height: Int) -> Int {
        SSIMULACRA2.workingBytes(width: width, height: height) + width * height * 3
            + JPEGTransform.workingBytes(width: width, height: height)
    }

    let pixels: PixelBuffer
    let variant: ImageVariant
    let target: Double
    let budget: WorkBudget
    /// Encodes `pixels` at a quality, chroma and tables, trellis-quantised or not (the variant's other JPEG
    /// settings). The search chooses the tables (`JPEGQuantization.searched`) and the trellis (`trellises`), and they
    /// come back in the outcome, whose quality they map back to the variant's scale (`standardQuality(of:)`).
    let encode: (Int, JPEGEncoder.Chroma, JPEGQuantization, Bool) throws(ImageError) -> Data
    /// Whether most of the image's blocks are flat (`isSmooth`).
    let smooth: Bool

    /// Cost: one pass over `pixels` (`isSmooth`).
    init(pixels: PixelBuffer, variant: ImageVariant, target: Double, budget: WorkBudget,
         encode: @escaping (Int, JPEGEncoder.Chroma, JPEGQuantization, Bool) throws(ImageError) -> Data) {
        self.pixels = pixels
        self.variant = variant
        self.target = target
        self.budget = budget
        self.encode = encode
        smooth = Self.isSmooth(pixels)
    }

    /// One chroma's (and tables') search: the lowest passing quality found, the best failing one that fits the
    /// budget, and why it ended.
    private struct Pass {
        var best: Outcome?
        var fallback: Outcome?
        var unscored: Outcome?
        var smallestOverBudget: Data?
        var stopped = false
        /// The last step's time: whether another search (the second tables, or 4:4:4) may still run.
        var lastStepCost: Duration?
        /// True when quality 100 was scored and failed, or (at 4:2:0) the slope puts the target beyond it.
        var exhausted = false

        /// Takes `other`'s pass when it is smaller (or, with no pass yet, its best-scoring failure), and its stop.
        mutating func merge(_ other: Pass) {
            if let candidate = other.best, best.map({ candidate.bytes.count < $0.bytes.count }) ?? true {
                best = candidate
            } else if best == nil, let candidate = other.fallback, (candidate.score ?? 0) > (fallback?.score ?? 0) {
                fallback = candidate
            }
            stopped = stopped || other.stopped
            smallestOverBudget = smallestOverBudget ?? other.smallestOverBudget
            lastStepCost = other.lastStepCost ?? lastStepCost
        }
    }

    func run(warnings: inout [String]) throws(ImageError) -> Outcome {
        let start = ContinuousClock.now
        let scoring = budget.halfOfTimeLeft(from: start)
        let metric = try SSIMULACRA2(reference: pixels, budget: budget)
        // Guesses are on the standard tables' scale (the variant's quality); each search's tables move them to theirs.
        let halvedTables = JPEGQuantization.searched(.halved, smooth: smooth)
        var pass = try search(.halved, tables: halvedTables[0], from: variant.quality, metric: metric, scoring: scoring)
        for tables in halvedTables.dropFirst() {
            guard let best = pass.best, !pass.stopped, !Self.leavesNoTime(after: pass.lastStepCost, scoring: scoring) else { break }
            pass.merge(try search(.halved, tables: tables, from: Self.standardQuality(of: best), metric: metric, scoring: scoring,
                                  toBeat: best.bytes.count))
        }
        let needsFullChroma = pass.best.map { $0.quality >= Self.fullChromaQuality } ?? pass.exhausted
        if needsFullChroma, !pass.stopped, Self.leavesNoTime(after: pass.lastStepCost, scoring: scoring) {
            pass.stopped = true
        } else if needsFullChroma, !pass.stopped, pass.smallestOverBudget == nil {
            let halvedBest = pass.best.map(Self.standardQuality)
            pass.merge(try search(.full, tables: JPEGQuantization.searched(.full, smooth: smooth)[0],
                                  from: min(variant.quality, halvedBest ?? 100), metric: metric, scoring: scoring,
                                  toBeat: pass.best?.bytes.count))
        }
        if let best = pass.best { return best }
        if let unscored = pass.unscored, pass.fallback == nil {
            warnings.append("quality \(unscored.quality) not scored: the deadline came before the SSIMULACRA2 comparison ended")
            return unscored
        }
        if let fallback = pass.fallback {
            let reason = pass.smallestOverBudget != nil ? "to meet the byte budget"
                : fallback.quality == 100 ? "at quality 100" : pass.stopped ? "when the deadline stopped the search"
                : "after \(Self.maximumEvaluations) steps"
            warnings.append("SSIMULACRA2 \(Self.format(fallback.score ?? 0)) below the target \(Self.format(target)) \(reason)")
            return fallback
        }
        // Every quality tried was over the budget: step down below them, as without a target (both ends moved to
        // the tables' scale).
        let tables = halvedTables[0]
        for quality in ImageEncoding.qualityLadder(from: tables.quality(matchingStandard: variant.quality),
                                                   minimum: tables.quality(matchingStandard: variant.minimumQuality)) {
            let bytes = try encode(quality, .halved, tables, trellises(.halved))
            if let limit = variant.maximumBytes, bytes.count > limit { continue }
            let score = try metric.score(try JPEGDecoder.decode(bytes, checkingIntegrity: false, budget: budget).pixels, budget: budget)
            warnings.append("quality lowered to \(quality) to meet the byte budget (SSIMULACRA2 \(Self.format(score)))")
            return Outcome(bytes: bytes, quality: quality, chroma: .halved, quantization: tables, trellis: trellises(.halved),
                           score: score)
        }
        throw .outputTooLarge(bytes: pass.smallestOverBudget?.count ?? 0, limit: variant.maximumBytes ?? 0)
    }

    /// One search at `chroma` on `tables` from `standardGuess`. With `toBeat`, the size of a passing file an earlier
    /// search found, a candidate as large or larger cannot be kept: it is not scored, and counts as too high.
    private func search(_ chroma: JPEGEncoder.Chroma, tables: JPEGQuantization, from standardGuess: Int,
                        metric: SSIMULACRA2, scoring: WorkBudget, toBeat: Int? = nil) throws(ImageError) -> Pass {
        // The floor keeps its meaning on these tables: no coarser than `minimumQuality` on the standard ones.
        let floor = tables.quality(matchingStandard: variant.minimumQuality)
        var failing = floor - 1, passing = 101      // the open bracket: known too low, known high enough (or too big)
        var pass = Pass()
        var slope: Double?, previous: (quality: Int, score: Double)?
        var quality = max(floor, self.quality(matchingStandard: standardGuess, on: tables, at: chroma))
        let trellis = trellises(chroma)
        var stepCost: Duration?
        for step in 0..<Self.maximumEvaluations {
            if Self.leavesNoTime(after: stepCost, scoring: scoring), pass.best != nil || pass.fallback != nil {
                pass.stopped = true
                break
            }
            try budget.check()
            let started = ContinuousClock.now
            let bytes = try encode(quality, chroma, tables, trellis)
            var next: Int
            let overBudget = variant.maximumBytes.map { bytes.count > $0 } ?? false
            if overBudget || toBeat.map({ bytes.count >= $0 }) ?? false {
                // Too large to keep (over the budget, or no smaller than the pass to beat), and no higher quality is
                // smaller: it needs no score. Bytes grow fast with quality near the top; halve the way down to the
                // known floor.
                passing = quality
                if overBudget, pass.smallestOverBudget.map({ bytes.count < $0.count }) ?? true { pass.smallestOverBudget = bytes }
                next = quality - max(1, (quality - failing) / 2)
            } else {
                let score: Double
                do throws(ImageError) {
                    score = try metric.score(try JPEGDecoder.decode(bytes, checkingIntegrity: false, budget: scoring).pixels, budget: scoring)
                } catch .deadlineExceeded {
                    try budget.check()
                    pass.stopped = true
                    if pass.best == nil, pass.fallback == nil {
                        pass.unscored = Outcome(bytes: bytes, quality: quality, chroma: chroma, quantization: tables,
                                                trellis: trellis, score: nil)
                    }
                    break
                }
                let outcome = Outcome(bytes: bytes, quality: quality, chroma: chroma, quantization: tables, trellis: trellis,
                                      score: score)
                if score >= target {
                    passing = quality
                    pass.best = outcome
                    if score < target + Self.closeEnough { break }
                } else {
                    failing = quality
                    if pass.fallback.map({ $0.quality < quality }) ?? true { pass.fallback = outcome }
                    if quality == 100 { pass.exhausted = true }
                }
                if let previous, previous.score != score, previous.quality != quality {
                    slope = min(8, max(0.5, Double(quality - previous.quality) / (score - previous.score)))
                }
                previous = (quality, score)
                let rise = target + Self.aimMargin - score
                next = quality + Int((rise * (slope ?? Self.firstSlope(chroma, tables: tables, rising: rise > 0))).rounded(.up))
                // At 4:2:0, a target beyond quality 100 on the slope (before it is measured, the steepest a first
                // step may meet) is out of reach: 4:4:4 is searched without a step on quality 100 here (text and line
                // art score far below the target at the first guess: docs/benchmarks.md, "Quality by target").
                let reach = quality + Int((rise * (slope ?? Self.steepestRisingSlope(tables))).rounded(.up))
                if chroma == .halved, pass.best == nil, reach > 100 { pass.exhausted = true }
            }
            stepCost = started.duration(to: .now)
            if pass.exhausted || passing - failing <= 1 { break }
            // With no pass yet, the last step tries the highest quality left, so that only the budget or the deadline
            // can leave an output below the target.
            if step == Self.maximumEvaluations - 2, pass.best == nil { next = passing - 1 }
            next = min(passing - 1, max(failing + 1, next))
            if next == quality { next = quality == passing ? quality - 1 : quality + 1 }
            quality = next
        }
        pass.lastStepCost = stepCost
        return pass
    }

    /// A luma block this even (standard deviation in 8-bit levels) is flat.
    static let flatBlockDeviation = 2.0
    /// An image with at least this share of flat 8×8 blocks is smooth (`JPEGQuantization.searched`): the share lies
    /// below the generated gradients and blurred low noise and above the story page and the photographs, measured at
    /// 1038 px (docs/benchmarks.md, "Bytes at equal score").
    static let smoothShare = 0.95

    /// Whether most of `pixels`' 8×8 blocks are flat in luma. Cost: one pass over the pixels.
    static func isSmooth(_ pixels: PixelBuffer) -> Bool {
        let columns = pixels.width / 8, rows = pixels.height / 8
        guard columns > 0, rows > 0, pixels.channels >= 3 else { return false }
        var flat = 0
        pixels.pixels.withUnsafeBufferPointer { bytes in
            for blockRow in 0..<rows {
                for blockColumn in 0..<columns {
                    var sum = 0.0, squares = 0.0
                    for y in (blockRow * 8)..<(blockRow * 8 + 8) {
                        var offset = y * pixels.rowBytes + blockColumn * 8 * pixels.channels
                        for _ in 0..<8 {
                            let luma = 0.299 * Double(bytes[offset]) + 0.587 * Double(bytes[offset + 1])
                                + 0.114 * Double(bytes[offset + 2])
                            sum += luma
                            squares += luma * luma
                            offset += pixels.channels
                        }
                    }
                    let mean = sum / 64
                    if squares / 64 - mean * mean < flatBlockDeviation * flatBlockDeviation { flat += 1 }
                }
            }
        }
        return Double(flat) >= smoothShare * Double(columns * rows)
    }

    /// Whether the deadline leaves less than two more steps of `stepCost` (the search then takes its best so far).
    private static func leavesNoTime(after stepCost: Duration?, scoring: WorkBudget) -> Bool {
        stepCost.map { ContinuousClock.now + $0 * 2 > scoring.deadline } ?? false
    }

    static func format(_ score: Double) -> String { score.decimalString(fractionDigits: 1) }
}
