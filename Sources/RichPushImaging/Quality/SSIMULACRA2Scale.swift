import Foundation
/// One scale of SSIMULACRA2: both images to XYB, the five Gaussian-blurred planes per channel (the means, the
/// squares and the product), then the SSIM and edge-difference maps reduced to their 1- and 4-norms.
///
/// The reference's side (its XYB, mean and square) is prepared once (`Reference`) and read by every comparison. The
/// candidate's side streams: its rows are converted and blurred horizontally into a ring of 11 (the blur's height),
/// and each output row is blurred vertically and scored as soon as its neighbours are in, so the candidate's blurred
/// planes never exist whole and the working set stays in cache.
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

    /// The reference's side of one scale, computed once for every candidate it is compared with: per channel whose
    /// terms count, its XYB plane and its blurred mean, and for `.all` its blurred square. These are the quantities
    /// that do not depend on the candidate, so a comparison converts and blurs only the candidate's (three blurred
    /// quantities of five) and gives the same norms, bit for bit, as computing both sides each time.
    struct Reference: Sendable {
        let width: Int
        let height: Int
        let terms: [ChannelTerms]
        /// The planes, `width * height` floats each, in one allocation.
        fileprivate let storage: [Float]
        /// Per channel, where in `storage` its XYB plane, blurred mean and (for `.all`) blurred square start; nil
        /// where the channel has none.
        fileprivate let image: [Int?], mean: [Int?], square: [Int?]

        /// Converts and blurs the reference's rows. Cost: per pixel one XYB conversion and two 11-tap blurs per
        /// prepared quantity; memory `bytes(width:height:terms:)`.
        init(width: Int, height: Int, terms: [ChannelTerms], rows: RowSource, budget: WorkBudget?) throws(ImageError) {
            self.width = width
            self.height = height
            self.terms = terms
            let plane = width * height
            var planes = 0
            func next(_ present: Bool) -> Int? {
                guard present else { return nil }
                defer { planes += 1 }
                return planes * plane
            }
            let image = terms.map { next($0 != .none) }, mean = terms.map { next($0 != .none) }
            let square = terms.map { next($0 == .all) }
            var storage = [Float](repeating: 0, count: planes * plane)
            let lumaOnly = SSIMULACRA2Scale.lumaOnly(terms)
            try SSIMULACRA2Scale.blurRows(
                width: width, height: height, terms: terms, quantitiesPerChannel: 2, extraSlotRows: 0,
                budget: budget,
                load: { row, slot, scratch in
                    rows(row, scratch.linear, scratch.linear + width, scratch.linear + 2 * width)
                    storage.withUnsafeMutableBufferPointer { storage in
                        // Converted into a scratch row first: the planes hold only the channels that count.
                        let xyb = scratch.xyb
                        XYB.convert(red: scratch.linear, green: scratch.linear + width, blue: scratch.linear + 2 * width,
                                    count: width, lumaOnly: lumaOnly, into: xyb)
                        for channel in 0..<3 {
                            guard let start = image[channel] else { continue }
                            let a = storage.baseAddress! + start + row * width
                            a.update(from: xyb + channel * width, count: width)
                            let targets = slot + channel * 2 * width
                            SSIMULACRA2Scale.horizontalBlur(a, width: width, scratch: scratch, into: targets)
                            guard terms[channel] == .all else { continue }
                            for x in 0..<width { scratch.product[x] = a[x] * a[x] }
                            SSIMULACRA2Scale.horizontalBlur(scratch.product, width: width, scratch: scratch,
                                                            into: targets + width)
                        }
                    }
                },
                emit: { row, _, blurred in
                    storage.withUnsafeMutableBufferPointer { storage in
                        for channel in 0..<3 {
                            guard let start = mean[channel] else { continue }
                            (storage.baseAddress! + start + row * width)
                                .update(from: blurred + channel * 2 * width, count: width)
                            guard let start = square[channel] else { continue }
                            (storage.baseAddress! + start + row * width)
                                .update(from: blurred + (channel * 2 + 1) * width, count: width)
                        }
                    }
                })
            self.storage = storage
            self.image = image
            self.mean = mean
            self.square = square
        }

        /// The bytes a prepared scale holds: per channel two planes (the image and its mean) for `.edges`, three
        /// for `.all`.
        static func bytes(width: Int, height: Int, terms: [ChannelTerms]) -> Int {
            let planes = terms.reduce(0) { $0 + ($1 == .none ? 0 : $1 == .edges ? 2 : 3) }
            return planes * width * height * MemoryLayout<Float>.size
        }
    }

    /// Measures one scale of a candidate against its prepared reference; the norms of a channel whose terms are
    /// `.none` (or of the SSIM map, for `.edges`) are left at zero. Cost: per pixel one XYB conversion (two cube
    /// roots when only Y counts, three otherwise), two 11-tap blurs per blurred quantity of the candidate (its
    /// mean, and for `.all` its square and the product) and the maps.
    static func measure(_ reference: Reference, distorted: RowSource, budget: WorkBudget?) throws(ImageError) -> Norms {
        let width = reference.width, terms = reference.terms
        let lumaOnly = lumaOnly(terms)
        var sums = [Double](repeating: 0, count: 18)
        var maps = [Float](repeating: 0, count: 3 * width)
        try reference.storage.withUnsafeBufferPointer { (planes) throws(ImageError) in
            let planes = planes.baseAddress!
            try blurRows(
                width: width, height: reference.height, terms: terms, quantitiesPerChannel: 3, extraSlotRows: 3,
                budget: budget,
                load: { row, slot, scratch in
                    distorted(row, scratch.linear, scratch.linear + width, scratch.linear + 2 * width)
                    let xyb = slot + 9 * width
                    XYB.convert(red: scratch.linear, green: scratch.linear + width, blue: scratch.linear + 2 * width,
                                count: width, lumaOnly: lumaOnly, into: xyb)
                    for channel in 0..<3 {
                        guard let start = reference.image[channel] else { continue }
                        let a = planes + start + row * width, b = xyb + channel * width
                        let targets = slot + channel * 3 * width
                        horizontalBlur(b, width: width, scratch: scratch, into: targets)
                        guard terms[channel] == .all else { continue }
                        for x in 0..<width { scratch.product[x] = b[x] * b[x] }
                        horizontalBlur(scratch.product, width: width, scratch: scratch, into: targets + width)
                        for x in 0..<width { scratch.product[x] = a[x] * b[x] }
                        horizontalBlur(scratch.product, width: width, scratch: scratch, into: targets + 2 * width)
                    }
                },
                emit: { row, slot, blurred in
                    maps.withUnsafeMutableBufferPointer { maps in
                        for channel in 0..<3 {
                            guard let image = reference.image[channel], let mean = reference.mean[channel] else { continue }
                            let blurred = UnsafePointer(blurred + channel * 3 * width), offset = row * width
                            var moments: (UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>)?
                            if let square = reference.square[channel] {
                                moments = (planes + square + offset, blurred + width, blurred + 2 * width)
                            }
                            let partial = SSIMULACRA2MapSums.row(
                                width: width, mean1: planes + mean + offset, mean2: blurred, moments: moments,
                                image1: planes + image + offset, image2: slot + (9 + channel) * width,
                                scratch: maps.baseAddress!)
                            for index in 0..<6 { sums[channel * 6 + index] += partial[index] }
                        }
                    }
                })
        }
        let perPixel = 1 / Double(width * reference.height)
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

    /// Whether only the Y channel counts at a scale (X and B need not be converted).
    private static func lumaOnly(_ terms: [ChannelTerms]) -> Bool { terms[0] == .none && terms[2] == .none }

    /// The rows a streaming pass works in besides its ring: one row's linear RGB, its XYB, a product row and the
    /// zero-padded row the horizontal blur reads.
    fileprivate struct Scratch {
        let linear: UnsafeMutablePointer<Float>
        let xyb: UnsafeMutablePointer<Float>
        let product: UnsafeMutablePointer<Float>
        let padded: UnsafeMutablePointer<Float>
        let weights: UnsafePointer<Float>
    }

    /// The ring's slots: the blur's height.
    private static let slots = 2 * radius + 1

    /// The ring and scratch rows a comparison (`measure`) allocates for a scale `width` wide: eleven slots of nine
    /// blurred and three XYB rows, the zero row, nine vertically blurred rows, the maps and the scratch rows.
    static func ringBytes(width: Int) -> Int {
        ((slots * 12 + 1) * width + 9 * width + 3 * width + 7 * width + width + 2 * radius) * MemoryLayout<Float>.size
    }

    /// Streams `height` rows through the 11-row blur. `load(row, slot, scratch)` fills a ring slot: per channel
    /// whose terms count, `quantitiesPerChannel` horizontally blurred rows (the first for `.edges`, all for
    /// `.all`), then `extraSlotRows` rows of the caller's own. Once a row's neighbours are in, `emit(row, slot,
    /// blurred)` gets its slot and the same quantities blurred vertically (rows outside the image count as zero,
    /// as libjxl's recursive Gaussian does at the borders).
    private static func blurRows(
        width: Int, height: Int, terms: [ChannelTerms], quantitiesPerChannel: Int, extraSlotRows: Int,
        budget: WorkBudget?,
        load: (Int, UnsafeMutablePointer<Float>, Scratch) -> Void,
        emit: (Int, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>) -> Void
    ) throws(ImageError) {
        let rowsPerSlot = 3 * quantitiesPerChannel + extraSlotRows, padded = width + 2 * radius
        var ring = [Float](repeating: 0, count: (slots * rowsPerSlot + 1) * width)   // + the zero row
        var scratch = [Float](repeating: 0, count: 7 * width + padded + 3 * quantitiesPerChannel * width)
        for inputRow in 0..<(height + radius) {
            if inputRow % 64 == 0 { try budget?.check() }
            ring.withUnsafeMutableBufferPointer { ring in
                scratch.withUnsafeMutableBufferPointer { scratchRows in
                    weights.withUnsafeBufferPointer { weights in
                        let ring = ring.baseAddress!, rows = scratchRows.baseAddress!
                        let scratch = Scratch(linear: rows, xyb: rows + 3 * width, product: rows + 6 * width,
                                              padded: rows + 7 * width, weights: weights.baseAddress!)
                        let blurred = rows + 7 * width + padded
                        if inputRow < height {
                            load(inputRow, ring + (inputRow % slots) * rowsPerSlot * width, scratch)
                        }
                        let outputRow = inputRow - radius
                        guard outputRow >= 0 else { return }
                        withUnsafeTemporaryAllocation(of: UnsafePointer<Float>.self, capacity: slots) { sources in
                            for channel in 0..<3 where terms[channel] != .none {
                                let count = terms[channel] == .all ? quantitiesPerChannel : 1
                                for quantity in (channel * quantitiesPerChannel)..<(channel * quantitiesPerChannel + count) {
                                    for tap in 0..<slots {
                                        let sourceRow = outputRow - radius + tap
                                        // Rows outside the image are zero: the ring's spare row, kept all zeros.
                                        sources[tap] = UnsafePointer(sourceRow < 0 || sourceRow >= height
                                            ? ring + slots * rowsPerSlot * width
                                            : ring + ((sourceRow % slots) * rowsPerSlot + quantity) * width)
                                    }
                                    weightedSum(UnsafePointer(sources.baseAddress!), count: width, weights: scratch.weights,
                                                into: blurred + quantity * width)
                                }
                            }
                        }
                        emit(outputRow, ring + (outputRow % slots) * rowsPerSlot * width, blurred)
                    }
                }
            }
        }
    }

    private static func horizontalBlur(_ row: UnsafePointer<Float>, width: Int, scratch: Scratch,
                                       into output: UnsafeMutablePointer<Float>) {
        let padded = scratch.padded
        for index in 0..<radius {
            padded[index] = 0
            padded[width + radius + index] = 0
        }
        (padded + radius).update(from: row, count: width)
        withUnsafeTemporaryAllocation(of: UnsafePointer<Float>.self, capacity: slots) { sources in
            for tap in 0..<slots { sources[tap] = UnsafePointer(padded + tap) }
            weightedSum(UnsafePointer(sources.baseAddress!), count: width, weights: scratch.weights, into: output)
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
}
