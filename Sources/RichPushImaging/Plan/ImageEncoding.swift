import Foundation

/// Chooses the output format, and the JPEG quality: searched for the variant's SSIMULACRA2 target when it has one
/// (`QualitySearch`), otherwise its fixed quality, stepped down only to meet the byte budget. A PNG with alpha and a
/// target becomes a palette PNG when that holds the target and is smaller (`PalettePNG`).
enum ImageEncoding {
    struct Encoded {
        var bytes: Data
        var format: ImageFormat
        var quality: Int?
        /// The SSIMULACRA2 score when a search chose the quality, or a palette PNG was kept for holding the target.
        var score: Double?
        /// The JPEG's chroma resolution, nil for PNG.
        var chroma: JPEGEncoder.Chroma?
    }

    /// Quality steps tried below the variant's quality, ending exactly at its minimum.
    static func qualityLadder(from quality: Int, minimum: Int) -> [Int] {
        let top = min(100, max(1, quality)), bottom = min(top, max(1, minimum))
        var ladder = [top]
        var next = top - 6
        while next > bottom {
            ladder.append(next)
            next -= 6
        }
        if ladder.last != bottom { ladder.append(bottom) }
        return ladder
    }

    /// A colour profile larger than this share of the variant's byte budget is dropped: it alone would push the
    /// output over the budget at any quality, and an image shown as sRGB beats no image (a 3 MB profile cost a
    /// photograph its attachment as `output_too_large`). Profiles of real images are a few hundred bytes to a
    /// few kilobytes (sRGB 3 KB, Display P3 0.5 KB).
    static let largestProfileShareOfBudget = 4

    static func encode(_ pixels: PixelBuffer, variant: ImageVariant, iccProfile: [UInt8]?, budget: WorkBudget,
                       warnings: inout [String]) throws(ImageError) -> Encoded {
        var iccProfile = iccProfile
        if let profile = iccProfile, let limit = variant.maximumBytes, profile.count > limit / largestProfileShareOfBudget {
            warnings.append("the \(profile.count)-byte ICC profile was dropped: it alone is more than a quarter of the \(limit)-byte budget (the image is shown as sRGB)")
            iccProfile = nil
        }
        let wantsPNG: Bool
        switch variant.format {
        case .automatic: wantsPNG = pixels.channels == 4
        case .png: wantsPNG = true
        case .jpeg: wantsPNG = false
        case .webp: return try encodeWebP(pixels, variant: variant, iccProfile: iccProfile, budget: budget, warnings: &warnings)
        case .webpWhenSmaller:
            var automatic = variant
            automatic.format = .automatic
            let first = try encode(pixels, variant: automatic, iccProfile: iccProfile, budget: budget, warnings: &warnings)
            guard variant.qualityTarget != nil else { return first }
            // The first file is finished: a WebP search that runs out of time or budget leaves it in place.
            var webpWarnings: [String] = []
            guard let webp = try? encodeWebP(pixels, variant: variant, iccProfile: iccProfile, budget: budget,
                                             warnings: &webpWarnings),
                  webp.bytes.count < first.bytes.count, webpWarnings.isEmpty else { return first }
            return webp
        }
        if wantsPNG {
            var encoded = Encoded(bytes: try PNGEncoder.encode(pixels, iccProfile: iccProfile, budget: budget), format: .png, quality: nil)
            if let target = variant.qualityTarget, pixels.channels == 4,
               let palette = try PalettePNG.encode(pixels, target: target, truecolourBytes: encoded.bytes.count,
                                                   iccProfile: iccProfile, budget: budget, warnings: &warnings) {
                encoded = Encoded(bytes: palette.bytes, format: .png, quality: nil, score: palette.score)
            }
            let bytes = encoded.bytes
            if variant.maximumBytes.map({ bytes.count <= $0 }) ?? true { return encoded }
            if variant.format == .png, let limit = variant.maximumBytes { throw .outputTooLarge(bytes: bytes.count, limit: limit) }
            warnings.append("PNG was \(bytes.count) bytes, over the budget: flattened to JPEG")
        }
        let opaque = pixels.channels == 4 ? pixels.flattened(onto: variant.background) : pixels
        if let target = variant.qualityTarget {
            // The search's trellis-quantised candidates go through our own front end, and so do those of text and
            // line art on white or black, whose background runs are deringed.
            let deringing = Deringing.backgrounds(of: opaque)
            var transform: JPEGTransform?
            let search = QualitySearch(pixels: opaque, variant: variant, target: target, budget: budget) { quality, chroma, tables, trellis throws(ImageError) in
                guard trellis || !deringing.isEmpty else {
                    return try JPEGEncoder.encode(opaque, quality: quality, progressive: variant.progressive, chroma: chroma,
                                                  quantization: tables, iccProfile: iccProfile, budget: budget)
                }
                let current: JPEGTransform
                if let transform, transform.chroma == chroma {
                    current = transform
                } else {
                    transform = nil   // one transform at a time, within the memory reservation
                    current = try JPEGTransform(opaque, chroma: chroma, deringing: deringing, budget: budget)
                    transform = current
                }
                return try JPEGEncoder.encode(current, quality: quality, progressive: variant.progressive, quantization: tables,
                                              trellis: trellis, iccProfile: iccProfile, budget: budget)
            }
            var outcome = try search.run(warnings: &warnings)
            // The found file rewritten in the scan script that makes it smallest: the same coefficients, so the same
            // pixels and score, in fewer bytes, most on gradients (docs/benchmarks.md, "Scan scripts"). The transform
            // goes first, so that the rewrite's coefficients fit in its place in the memory reservation.
            transform = nil
            outcome.bytes = try JPEGScanOptimizer.smallest(outcome.bytes, iccProfile: iccProfile, budget: budget)
            return Encoded(bytes: outcome.bytes, format: .jpeg, quality: outcome.quality, score: outcome.score,
                           chroma: outcome.chroma)
        }
        var smallest = Data()
        for quality in qualityLadder(from: variant.quality, minimum: variant.minimumQuality) {
            let bytes = try JPEGEncoder.encode(opaque, quality: quality, progressive: variant.progressive,
                                               iccProfile: iccProfile, budget: budget)
            guard let limit = variant.maximumBytes, bytes.count > limit else {
                if quality != variant.quality { warnings.append("quality lowered to \(quality) to meet the byte budget") }
                return Encoded(bytes: bytes, format: .jpeg, quality: quality, chroma: .halved)
            }
            smallest = bytes
        }
        throw .outputTooLarge(bytes: smallest.count, limit: variant.maximumBytes ?? 0)
    }

    /// WebP, with alpha when the image has any: at the variant's fixed quality, stepping down for the byte budget,
    /// or, with a target, the lowest quality that reaches it (`WebPQualitySearch`).
    private static func encodeWebP(_ pixels: PixelBuffer, variant: ImageVariant, iccProfile: [UInt8]?, budget: WorkBudget,
                                   warnings: inout [String]) throws(ImageError) -> Encoded {
        let pixels = pixels.channels == 4 && !pixels.hasTranslucentPixels ? pixels.droppingAlpha() : pixels
        if let target = variant.qualityTarget {
            let found = try WebPQualitySearch(pixels: pixels, variant: variant, target: target, iccProfile: iccProfile,
                                              budget: budget).run(warnings: &warnings)
            return Encoded(bytes: found.bytes, format: .webp, quality: found.quality, score: found.score)
        }
        var smallest = Data()
        for quality in qualityLadder(from: variant.quality, minimum: variant.minimumQuality) {
            let bytes = try WebPEncoder.encode(pixels, quality: quality, iccProfile: iccProfile, budget: budget)
            guard let limit = variant.maximumBytes, bytes.count > limit else {
                if quality != variant.quality { warnings.append("quality lowered to \(quality) to meet the byte budget") }
                return Encoded(bytes: bytes, format: .webp, quality: quality)
            }
            smallest = bytes
        }
        throw .outputTooLarge(bytes: smallest.count, limit: variant.maximumBytes ?? 0)
    }
}
