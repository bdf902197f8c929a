import Foundation
/// SSIMULACRA2 (Jon Sneyers, 2022-23; libjxl tools/ssimulacra2.cc): a perceptual score of how close an image is
/// to a reference. 100 is identical, 90 visually lossless, 70-80 high quality, 50 medium; below 30 is poor.
///
/// The reference is prepared once (its lower scales) and compared with any number of candidates of the same
/// size, as the quality search does. Images below 8 pixels on a side have no scales and score 100.
///
/// Cost per comparison: the candidate's five halvings, then at each of up to six scales two XYB conversions, 15
/// blurred rows and the maps per pixel (about 4/3 of the full-size work in total); memory is the candidate's
/// halved images (1/3 of its pixels as 12-byte floats) and an 11-row ring, not whole blurred planes.
struct SSIMULACRA2 {
    static let scaleCount = 6

    let width: Int
    let height: Int
    /// The reference's side of each measured scale, prepared once (`SSIMULACRA2Scale.Reference`).
    private let scales: [SSIMULACRA2Scale.Reference]

    /// The memory a prepared reference and one comparison hold beyond the two images' own pixels: the reference's
    /// prepared scales, the lower scale being halved and the one it is halved from (under a third of the image's
    /// pixels, 12 bytes each: the reference's while it is prepared, the candidate's during a comparison), and the
    /// comparison's ring of blurred rows.
    static func workingBytes(width: Int, height: Int) -> Int {
        var bytes = width * height * 12 / 3 + SSIMULACRA2Scale.ringBytes(width: width)
        var size = (width: width, height: height)
        for scale in 0..<measuredScaleCount {
            bytes += SSIMULACRA2Scale.Reference.bytes(width: size.width, height: size.height, terms: terms[scale])
            size = ((size.width + 1) / 2, (size.height + 1) / 2)
        }
        return bytes
    }

    /// Prepares `reference` (RGB). Cost: its halvings, then per scale one XYB conversion and the blurs of its own
    /// quantities, a little less than one comparison.
    init(reference: PixelBuffer, budget: WorkBudget? = nil) throws(ImageError) {
        guard reference.channels == 3 else {
            throw .encodeFailed(reason: "SSIMULACRA2 needs RGB pixels, got \(reference.channels) channels")
        }
        width = reference.width
        height = reference.height
        var scales: [SSIMULACRA2Scale.Reference] = []
        try Self.visitScales(of: reference) { (scale, width, height, rows) throws(ImageError) in
            scales.append(try SSIMULACRA2Scale.Reference(width: width, height: height, terms: Self.terms[scale],
                                                         rows: rows, budget: budget))
        }
        self.scales = scales
    }

    /// The score of `candidate` (RGB, the reference's size) against the reference.
    func score(_ candidate: PixelBuffer, budget: WorkBudget? = nil) throws(ImageError) -> Double {
        guard candidate.channels == 3, candidate.width == width, candidate.height == height else {
            throw .encodeFailed(reason: "SSIMULACRA2 compares RGB images of one size: \(width)x\(height) against "
                                + "\(candidate.width)x\(candidate.height)x\(candidate.channels)")
        }
        var norms: [SSIMULACRA2Scale.Norms] = []
        try Self.visitScales(of: candidate) { (scale, _, _, rows) throws(ImageError) in
            try budget?.check()
            norms.append(try SSIMULACRA2Scale.measure(scales[scale], distorted: rows, budget: budget))
        }
        return Self.score(of: norms)
    }

    /// Calls `body` with each scale the metric measures of `pixels`, in order: its index, size and linear RGB rows.
    /// The first is `pixels` itself; each next one is the one above it halved in linear light, while that one is at
    /// least 8 pixels on both sides (so the last may be smaller), up to `measuredScaleCount`. Images below 8 pixels
    /// on a side have no scale. One halved scale is held at a time, beside the one it is halved from.
    private static func visitScales(
        of pixels: PixelBuffer,
        _ body: (Int, Int, Int, SSIMULACRA2Scale.RowSource) throws(ImageError) -> Void
    ) throws(ImageError) {
        guard pixels.width >= 8, pixels.height >= 8 else { return }
        try body(0, pixels.width, pixels.height) { LinearImage.linearRow(of: pixels, y: $0, red: $1, green: $2, blue: $3) }
        var current: LinearImage?
        for scale in 1..<measuredScaleCount {
            let size: (width: Int, height: Int) = current.map { ($0.width, $0.height) } ?? (pixels.width, pixels.height)
            guard size.width >= 8, size.height >= 8 else { return }
            let next = current.map { $0.halved() } ?? LinearImage(halving: pixels)
            current = next
            try body(scale, next.width, next.height) { y, red, green, blue in
                Self.copyRow(y, of: next, red: red, green: green, blue: blue)
            }
        }
    }

    /// A term whose weight is below this moves the score by less than 0.01 at any quality worth scoring (its norm
    /// is at most about 1): the comparison does not compute it. Measured on the check script's 128 pairs: the
    /// largest change is reported in docs/benchmarks.md ("SSIMULACRA2").
    static let negligibleWeight = 0.01

    /// Per scale and channel, which maps have a weight that counts, read from the published weights: at full size
    /// only Y does (X's and B's weights there are under 0.001), which is most of the saving, and nothing at the
    /// sixth scale.
    static let terms: [[SSIMULACRA2Scale.ChannelTerms]] = (0..<scaleCount).map { scale in
        (0..<3).map { channel in
            let norms = (0..<2).map { norm in ((channel * scaleCount + scale) * 2 + norm) * 3 }
            if norms.contains(where: { weights[$0] >= negligibleWeight }) { return .all }
            if norms.contains(where: { weights[$0 + 1] >= negligibleWeight || weights[$0 + 2] >= negligibleWeight }) {
                return .edges
            }
            return .none
        }
    }

    /// The scales up to the last one with a term that counts (five of six): the images are not halved further.
    static let measuredScaleCount = (terms.lastIndex { $0.contains { $0 != .none } } ?? -1) + 1

    /// The weighted sum of the 108 norms (6 scales x 3 channels x 2 norms x 3 maps), mapped to 0...100 by the
    /// published fit. Scales beyond the image's (when it is small) contribute nothing.
    static func score(of scales: [SSIMULACRA2Scale.Norms]) -> Double {
        var sum = 0.0, index = 0
        for channel in 0..<3 {
            for scale in 0..<scaleCount {
                for norm in 0..<2 {
                    if scale < scales.count {
                        sum += weights[index] * abs(scales[scale].ssim[channel * 2 + norm])
                        sum += weights[index + 1] * abs(scales[scale].edges[channel * 4 + norm])
                        sum += weights[index + 2] * abs(scales[scale].edges[channel * 4 + norm + 2])
                    }
                    index += 3
                }
            }
        }
        sum *= 0.9562382616834844
        sum = 2.326765642916932 * sum - 0.020884521182843837 * sum * sum + 6.248496625763138e-05 * sum * sum * sum
        return sum > 0 ? 100 - 10 * pow(sum, 0.6276336467831387) : 100
    }

    private static func copyRow(_ y: Int, of image: LinearImage, red: UnsafeMutablePointer<Float>,
                                green: UnsafeMutablePointer<Float>, blue: UnsafeMutablePointer<Float>) {
        image.withRow(y) { r, g, b in
            red.update(from: r, count: image.width)
            green.update(from: g, count: image.width)
            blue.update(from: b, count: image.width)
        }
    }

    /// The published weights, in the order channel, scale, norm, map (SSIM, artifact, detail lost).
    static let weights: [Double] = [
        0.0, 0.0007376606707406586, 0.0, 0.0, 0.0007793481682867309, 0.0,
        0.0, 0.0004371155730107379, 0.0, 1.1041726426657346, 0.00066284834129271, 0.00015231632783718752,
        0.0, 0.0016406437456599754, 0.0, 1.8422455520539298, 11.441172603757666, 0.0,
        0.0007989109436015163, 0.000176816438078653, 0.0, 1.8787594979546387, 10.94906990605142, 0.0,
        0.0007289346991508072, 0.9677937080626833, 0.0, 0.00014003424285435884, 0.9981766977854967, 0.00031949755934435053,
        0.0004550992113792063, 0.0, 0.0, 0.0013648766163243398, 0.0, 0.0,
        0.0, 0.0, 0.0, 7.466890328078848, 0.0, 17.445833984131262,
        0.0006235601634041466, 0.0, 0.0, 6.683678146179332, 0.00037724407979611296, 1.027889937768264,
        225.20515300849274, 0.0, 0.0, 19.213238186143016, 0.0011401524586618361, 0.001237755635509985,
        176.39317598450694, 0.0, 0.0, 24.43300999870476, 0.28520802612117757, 0.0004485436923833408,
        0.0, 0.0, 0.0, 34.77906344483772, 44.835625328877896, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0008680556573291698, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0005313191874358747, 0.0, 0.00016533814161379112, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0004179171803251336, 0.0017290828234722833, 0.0,
        0.0020827005846636437, 0.0, 0.0, 8.826982764996862, 23.19243343998926, 0.0,
        95.1080498811086, 0.9863978034400682, 0.9834382792465353, 0.0012286405048278493, 171.2667255897307, 0.9807858872435379,
        0.0, 0.0, 0.0, 0.0005130064588990679, 0.0, 0.00010854057858411537,
    ]
}
