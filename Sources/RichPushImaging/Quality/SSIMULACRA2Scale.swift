import Foundation
/// One scale of SSIMULACRA2: both images to XYB, the five Gaussian-blurred planes per channel (the means, the
/// squares and the product), then the SSIM and edge-difference maps reduced to their 1- and 4-norms.
///
/// It streams: rows are converted and blurred horizontally into a ring of 11 (the blur's height), and each output
/// row is blurred vertically and scored as soon as its neighbours are in, so the blurred planes never exist whole
/// and the working set stays in cache. Cost: about 250 float operations per pixel.
struct SSIMULACRA2Scale {
    /// Per channel (X, Y, B-Y): the SSIM map's 1- and 4-norm, then the edge map's artifact 1- and 4-norm and its
    /// detail-lost 1- and 4-norm.
    struct Norms {
        var ssim = [Double](repeating: 0, count: 6)
        var edges = [Double](repeating: 0, count: 12)
    }

    /// Which of one channel's maps a scale computes: the metric's weights make many of its 108 terms negligible
    /// (`SSIMULACRA2.terms`), and a channel's maps cost only what they need.
    enum ChannelTerms: Sendable {
        /// No term of this channel counts at this scale: no blur, no map.
        case none
        /// Only the edge-difference maps count: the two blurred means.
        case edges
        /// The SSIM map counts too: all five blurred quantities.
        case all

        /// How many of the five blurred quantities (a, b, a*a, b*b, a*b) the maps read.
        var blurredQuantities: Int {
            switch self {
            case .none: 0
            case .edges: 2
            case .all: 5
            }
        }
    }

    /// Fills three planar linear RGB rows (`width` floats each) for a source row.
    typealias RowSource = (_ y: Int, _ red: UnsafeMutablePointer<Float>, _ green: UnsafeMutablePointer<Float>,
                           _ blue: UnsafeMutablePointer<Float>) -> Void

    /// The blur's reach: a Gaussian of sigma 1.5 cut at 3.33 sigma, outside the image counted as zero (as
    /// libjxl's recursive Gaussian does at the borders).
    static let radius = 5
    static let weights: [Float] = {
        let raw = (-radius...radius).map { exp(-0.5 * Double($0 * $0) / (1.5 * 1.5)) }
        let total = raw.reduce(0, +)
        return raw.map { Float($0 / total) }
    }()

    /// Rows held per ring slot: five blurred quantities and the two XYB rows, per channel.
    private static let blurredRows = 15, rowsPerSlot = 21, slots = 2 * radius + 1

    /// The ring and scratch rows `measure` allocates for a scale `width` wide.
    static func ringBytes(width: Int) -> Int {
        ((slots * rowsPerSlot + 1) * width + 9 * width + width + 2 * radius + (blurredRows + 3) * width) * MemoryLayout<Float>.size
    }

    /// Measures one scale; the norms of a channel whose `terms` are `.none` (or of the SSIM map, for `.edges`) are
    /// left at zero. Cost: per pixel two XYB conversions (two cube roots when only Y counts, three otherwise),
    /// two 11-tap blurs per blurred quantity and the maps.
    static func measure(width: Int, height: Int, terms: [ChannelTerms], reference: RowSource, distorted: RowSource,
                        budget: WorkBudget?) throws(ImageError) -> Norms {
        let padded = width + 2 * radius
        var ring = [Float](repeating: 0, count: (slots * rowsPerSlot + 1) * width)   // + the zero row
        // Linear RGB of both rows, the products, a zero-padded row for the horizontal blur, the vertical sums and
        // the maps' per-pixel values.
        var scratch = [Float](repeating: 0, count: 6 * width + 3 * width + padded + (blurredRows + 3) * width)
        var sums = [Double](repeating: 0, count: 18)
        for inputRow in 0..<(height + radius) {
            if inputRow % 64 == 0 { try budget?.check() }
            ring.withUnsafeMutableBufferPointer { ring in
                scratch.withUnsafeMutableBufferPointer { scratch in
                    weights.withUnsafeBufferPointer { weights in
                        let ring = ring.baseAddress!, scratch = scratch.baseAddress!, weights = weights.baseAddress!
                        if inputRow < height {
                            let slot = ring + (inputRow % slots) * rowsPerSlot * width
                            load(row: inputRow, width: width, terms: terms, reference: reference, distorted: distorted,
                                 slot: slot, scratch: scratch, padded: scratch + 9 * width, weights: weights)
                        }
                        let outputRow = inputRow - radius
                        if outputRow >= 0 {
                            score(row: outputRow, width: width, height: height, terms: terms, ring: ring,
                                  blurred: scratch + 9 * width + padded, weights: weights, sums: &sums)
                        }
                    }
                }
            }
        }
        let perPixel = 1 / Double(width * height)
        var norms = Norms()
        for channel in 0..<3 {
            norms.ssim[channel * 2] = sums[channel * 6] * perPixel
            norms.ssim[channel * 2 + 1] = (sums[channel * 6 + 1] * perPixel).squareRoot().squareRoot()
            for part in 0..<2 {
                norms.edges[channel * 4 + part * 2] = sums[channel * 6 + 2 + part * 2] * perPixel
                norms.edges[channel * 4 + part * 2 + 1] = (sums[channel * 6 + 3 + part * 2] * perPixel).squareRoot().squareRoot()
            }
        }
        return norms
    }

    /// Converts source row `row` of both images to XYB and fills its ring slot: rows 0..<15 are the horizontal
    /// blurs of (a, b, a*a, b*b, a*b) per channel, rows 15..<21 the XYB rows (a per channel, then b).
    private static func load(row: Int, width: Int, terms: [ChannelTerms], reference: RowSource, distorted: RowSource,
                             slot: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>,
                             padded: UnsafeMutablePointer<Float>, weights: UnsafePointer<Float>) {
        reference(row, scratch, scratch + width, scratch + 2 * width)
        distorted(row, scratch + 3 * width, scratch + 4 * width, scratch + 5 * width)
        let xybReference = slot + 15 * width, xybDistorted = slot + 18 * width
        let lumaOnly = terms[0] == .none && terms[2] == .none
        XYB.convert(red: scratch, green: scratch + width, blue: scratch + 2 * width, count: width, lumaOnly: lumaOnly,
                    into: xybReference)
        XYB.convert(red: scratch + 3 * width, green: scratch + 4 * width, blue: scratch + 5 * width, count: width,
                    lumaOnly: lumaOnly, into: xybDistorted)
        let product = scratch + 6 * width
        for channel in 0..<3 where terms[channel] != .none {
            let a = xybReference + channel * width, b = xybDistorted + channel * width
            let targets = slot + channel * 5 * width
            horizontalBlur(a, width: width, padded: padded, weights: weights, into: targets)
            horizontalBlur(b, width: width, padded: padded, weights: weights, into: targets + width)
            guard terms[channel] == .all else { continue }
            for x in 0..<width { product[x] = a[x] * a[x] }
            horizontalBlur(product, width: width, padded: padded, weights: weights, into: targets + 2 * width)
            for x in 0..<width { product[x] = b[x] * b[x] }
            horizontalBlur(product, width: width, padded: padded, weights: weights, into: targets + 3 * width)
            for x in 0..<width { product[x] = a[x] * b[x] }
            horizontalBlur(product, width: width, padded: padded, weights: weights, into: targets + 4 * width)
        }
    }

    private static func horizontalBlur(_ row: UnsafePointer<Float>, width: Int, padded: UnsafeMutablePointer<Float>,
                                       weights: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>) {
        for index in 0..<radius {
            padded[index] = 0
            padded[width + radius + index] = 0
        }
        (padded + radius).update(from: row, count: width)
        withUnsafeTemporaryAllocation(of: UnsafePointer<Float>.self, capacity: slots) { sources in
            for tap in 0..<slots { sources[tap] = UnsafePointer(padded + tap) }
            weightedSum(UnsafePointer(sources.baseAddress!), count: width, weights: weights, into: output)
        }
    }

    /// `output[x] = sum over taps of weights[tap] * sources[tap][x]`, for the 11 symmetric taps: each output is
    /// summed from all its taps at once (one store, not one load and store per tap), mirrored taps sharing a
    /// multiply. Plain scalar code on purpose: the optimiser vectorises it, and unlike `SIMD8` operators (generic
    /// calls without optimisation) it stays usable in debug builds, which the command-line tests run.
    private static func weightedSum(_ sources: UnsafePointer<UnsafePointer<Float>>, count: Int,
                                    weights: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>) {
        let (s0, s1, s2, s3, s4, s5) = (sources[0], sources[1], sources[2], sources[3], sources[4], sources[5])
        let (s6, s7, s8, s9, s10) = (sources[6], sources[7], sources[8], sources[9], sources[10])
        let (w0, w1, w2, w3, w4, w5) = (weights[0], weights[1], weights[2], weights[3], weights[4], weights[5])
        for x in 0..<count {
            var sum = s5[x] * w5
            sum += (s0[x] + s10[x]) * w0
            sum += (s1[x] + s9[x]) * w1
            sum += (s2[x] + s8[x]) * w2
            sum += (s3[x] + s7[x]) * w3
            sum += (s4[x] + s6[x]) * w4
            output[x] = sum
        }
    }

    /// Blurs output row `row` vertically from the ring (rows outside the image count as zero) and adds its map
    /// values to `sums` (per channel: SSIM, SSIM^4, artifact, artifact^4, detail lost, detail lost^4).
    private static func score(row: Int, width: Int, height: Int, terms: [ChannelTerms], ring: UnsafeMutablePointer<Float>,
                              blurred: UnsafeMutablePointer<Float>, weights: UnsafePointer<Float>, sums: inout [Double]) {
        withUnsafeTemporaryAllocation(of: UnsafePointer<Float>.self, capacity: slots) { sources in
            for channel in 0..<3 {
                for quantity in (channel * 5)..<(channel * 5 + terms[channel].blurredQuantities) {
                    for tap in 0..<slots {
                        let sourceRow = row - radius + tap
                        // Rows outside the image are zero: the ring's spare row, kept all zeros.
                        sources[tap] = UnsafePointer(sourceRow < 0 || sourceRow >= height
                            ? ring + slots * rowsPerSlot * width
                            : ring + ((sourceRow % slots) * rowsPerSlot + quantity) * width)
                    }
                    weightedSum(UnsafePointer(sources.baseAddress!), count: width, weights: weights,
                                into: blurred + quantity * width)
                }
            }
        }
        let slot = ring + (row % slots) * rowsPerSlot * width
        for channel in 0..<3 where terms[channel] != .none {
            let planes = blurred + channel * 5 * width
            var moments: (UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>)?
            if terms[channel] == .all {
                let squares = UnsafePointer(planes + 2 * width)
                moments = (squares, squares + width, squares + 2 * width)
            }
            let partial = SSIMULACRA2MapSums.row(width: width, mean1: planes, mean2: planes + width, moments: moments,
                                      image1: slot + (15 + channel) * width, image2: slot + (18 + channel) * width,
                                      scratch: blurred + blurredRows * width)
            for index in 0..<6 { sums[channel * 6 + index] += partial[index] }
        }
    }
}
