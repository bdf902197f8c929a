/// Which quantisation tables a JPEG is encoded with.
///
/// A variant's fixed `quality` is on libjpeg's standard scale (the JPEG standard's Annex K tables), the scale every
/// tool's "quality 82" means, so its outputs stay what they were. The quality search scores every candidate, so it
/// may use tables that spend the bits where the eye looks: at the same SSIMULACRA2 score they give fewer bytes than
/// the standard tables on the corpus and generated images (docs/benchmarks.md, "Quantisation tables").
enum JPEGQuantization: Sendable {
    /// libjpeg's own tables.
    case standard
    /// The table mozjpeg lists as tuned for PSNR-HVS-M on the Kodak image set (its `quant_table` 4), a published
    /// table; of the three tuned tables measured here it gave the fewest bytes at an equal score.
    case perceptual

    /// The tables the quality search encodes with, in order: the perceptual ones at 4:2:0. At 4:4:4, which the search
    /// takes for text and line art, the standard ones: the perceptual chroma table's coarse high frequencies, meant
    /// for halved chroma, cost bytes on full-resolution sharp colour edges (line art and text at 4:4:4 came out larger
    /// than the peers' standard tables at the same score: docs/benchmarks.md, "Quantisation tables").
    /// A smooth image (`QualitySearch.isSmooth`: gradients, blurred low noise) is searched at 4:2:0 on the standard
    /// tables too, and the smaller passing file kept, since on some smooth images the standard tables win
    /// (docs/benchmarks.md, "Bytes at equal score").
    static func searched(_ chroma: JPEGEncoder.Chroma, smooth: Bool) -> [JPEGQuantization] {
        switch chroma {
        case .halved: smooth ? [.perceptual, .standard] : [.perceptual]
        case .full: [.standard]
        }
    }

    /// How many quality steps lower these tables reach the score the standard tables reach at a given quality: the
    /// search's first guess moves by it: the median over the corpus and generated images at SSIMULACRA2 80
    /// (docs/benchmarks.md, "Quantisation tables").
    var qualityBelowStandard: Int {
        switch self {
        case .standard: 0
        case .perceptual: 6
        }
    }

    /// The quality on these tables that reaches the score `quality` reaches on the standard ones, within 1...100.
    func quality(matchingStandard quality: Int) -> Int {
        min(100, max(1, quality - qualityBelowStandard))
    }

    /// 128 values at quality 50, luma then chroma, in natural (row-major) order; nil for libjpeg's own.
    var tables: [UInt32]? {
        switch self {
        case .standard: nil
        case .perceptual: Self.perceptualTables
        }
    }

    private static let perceptualTables: [UInt32] = [
        // Luma.
        9, 10, 12, 14, 27, 32, 51, 62,
        11, 12, 14, 19, 27, 44, 59, 73,
        12, 14, 18, 25, 42, 59, 79, 78,
        17, 18, 25, 42, 61, 92, 87, 92,
        23, 28, 42, 75, 79, 112, 112, 99,
        40, 42, 59, 84, 88, 124, 132, 111,
        42, 64, 78, 95, 105, 126, 125, 99,
        70, 75, 100, 102, 116, 100, 107, 98,
        // Chroma.
        9, 10, 17, 19, 62, 89, 91, 97,
        12, 13, 18, 29, 84, 91, 88, 98,
        14, 19, 29, 93, 95, 95, 98, 97,
        20, 26, 84, 88, 95, 95, 98, 94,
        26, 86, 91, 93, 97, 99, 98, 99,
        99, 100, 98, 99, 99, 99, 99, 99,
        99, 99, 99, 99, 99, 99, 99, 99,
        97, 97, 99, 99, 99, 99, 97, 99,
    ]
}
