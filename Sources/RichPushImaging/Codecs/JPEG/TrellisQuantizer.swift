/// Trellis quantisation of one 8x8 block's AC coefficients: instead of rounding each to the nearest step, chooses
/// the values (the rounded one, a smaller one, or zero) that minimise bits plus weighted squared error over the
/// whole block, as the entropy coder will code it: a zero-run and size symbol per nonzero value, then end-of-block.
///
/// The method is mozjpeg's, as its paper and source describe it (our own code): a dynamic programme over the
/// zig-zag positions, where each nonzero candidate may follow any earlier nonzero one (the values between become a
/// run of zeros), and the block ends after the position that minimises the total. The rate is each symbol's code
/// length in libjpeg's standard Huffman tables plus its size bits; the weight on a coefficient's squared error
/// (in steps) falls as the block's AC energy rises, so textured blocks, where the error is masked, give up more of
/// their small coefficients: `weightScale / (activityKnee + mean AC energy)`, mozjpeg's default lambda in the
/// orthonormal DCT's scale. DC is rounded to the nearest, as libjpeg rounds it.
///
/// Why: at equal SSIMULACRA2 it gives fewer bytes than rounding, clearly at 4:2:0 and barely at 4:4:4, as measured
/// with mozjpeg itself (docs/benchmarks.md, "Trellis quantisation"); the search uses it only for 4:2:0.
///
/// Cost: per block, for each coefficient that does not round to zero, one pass over the earlier nonzero ones and
/// their few candidate values; a block whose values all round to zero (flat areas, most chroma) skips it. A search
/// step with it costs more than libjpeg's own encode, decode and comparison (docs/benchmarks.md, "Trellis
/// quantisation").
struct TrellisQuantizer: Sendable {
    /// mozjpeg's lambda (`lambda_log_scale1` 14.75 and `lambda_log_scale2` 16.5 over its DCT's 8x scale) in the
    /// orthonormal DCT's units: weight = 2^14.75 / (2^10.5 + mean squared AC coefficient), per step squared.
    static let weightScale: Float = 27554.2        // 2^14.75
    static let activityKnee: Float = 1448.15       // 2^10.5
    /// The most bits one AC value can cost: a 16-bit code and 10 size bits.
    static let longestSymbol: Float = 26
    /// Baseline JPEG's largest AC magnitude (10 bits, for 8-bit samples).
    static let largestMagnitude: Float = 1023

    /// The length in bits of each AC symbol's code (run << 4 | size), 0 for a symbol the table cannot code; 256.
    let codeLengths: [UInt8]

    init(codeLengths: [UInt8]) {
        precondition(codeLengths.count == 256, "an AC Huffman table has 256 symbols")
        self.codeLengths = codeLengths
    }

    /// Quantises `block` (64 orthonormal DCT coefficients, natural order) with the steps whose reciprocals are
    /// `reciprocals`, into `output` (64 values, natural order).
    func quantize(_ block: UnsafeBufferPointer<Float>, reciprocals: UnsafeBufferPointer<Float>,
                  into output: UnsafeMutableBufferPointer<Int16>) {
        let zigzag = JPEGTransform.zigzag
        // The block's AC energy, in eight lanes (not one chain of dependent additions). A block whose values all
        // round to zero (flat areas, most chroma) is done without the trellis; a value that does not is usually
        // among the first few.
        var energy = SIMD8<Float>()
        for row in 0..<8 {
            let samples = UnsafeRawPointer(block.baseAddress! + row * 8).loadUnaligned(as: SIMD8<Float>.self)
            energy += samples * samples
        }
        output[0] = JPEGTransform.rounded(block[0] * reciprocals[0])
        guard (1..<64).contains(where: { abs(block[zigzag[$0]] * reciprocals[zigzag[$0]]) >= 0.5 }) else {
            for k in 1..<64 { output[k] = 0 }
            return
        }
        let weight = Self.weightScale / (Self.activityKnee + (energy.sum() - block[0] * block[0]) / 63)
        let endOfBlock = Float(codeLengths[0x00]), zeroRunLength = Int(codeLengths[0xF0])
        codeLengths.withUnsafeBufferPointer { lengths in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: 128 + 16) { floats in
                withUnsafeTemporaryAllocation(of: Int32.self, capacity: 192 + 16) { integers in
                    // Per zig-zag position: the squared error of zeroing everything up to it, the best cost of a
                    // block ending in a nonzero value there, that value, and the position its run of zeros starts after.
                    let zeroedError = floats.baseAddress!, cost = zeroedError + 64, candidateCost = zeroedError + 128
                    let chosen = integers.baseAddress!, runStart = chosen + 64, starts = chosen + 128
                    let candidateValue = chosen + 192
                    zeroedError[0] = 0
                    cost[0] = 0
                    starts[0] = 0
                    var startCount = 1, zeroedSoFar: Float = 0   // kept in a register, not read back from memory
                    for position in 1..<64 {
                        let scaled = block[zigzag[position]] * reciprocals[zigzag[position]]
                        let magnitude = abs(scaled)
                        zeroedSoFar += weight * magnitude * magnitude
                        zeroedError[position] = zeroedSoFar
                        guard magnitude >= 0.5 else { continue }
                        let nearest = Int32(min(magnitude + 0.5, Self.largestMagnitude))
                        // Candidates: the nearest, then 7, 3, 1 (the largest value of each smaller size) while their
                        // error stays within what bits can win back (no code and size are longer than 26 bits).
                        let sizes = Int32.bitWidth - nearest.leadingZeroBitCount
                        let nearestError = Float(nearest) - magnitude
                        let bound = weight * nearestError * nearestError + Self.longestSymbol
                        var candidates = 0
                        for size in stride(from: sizes, to: 0, by: -1) {
                            let value = size < sizes ? Int32(1) << size - 1 : nearest
                            let error = Float(value) - magnitude
                            let distortion = weight * error * error
                            guard distortion <= bound else { break }
                            candidateValue[candidates] = value
                            candidateCost[candidates] = distortion + Float(size)
                            candidates += 1
                        }
                        var best = Float.infinity, bestValue: Int32 = 0, bestStart: Int32 = 0
                        // The latest starts first: they tend to be cheapest, so that earlier ones can be skipped once
                        // their cost before this value already exceeds the best.
                        for index in stride(from: startCount - 1, through: 0, by: -1) {
                            let start = Int(starts[index])
                            var run = position - 1 - start
                            var runBits = 0
                            if run >= 16 {
                                guard zeroRunLength > 0 else { continue }
                                runBits = (run >> 4) * zeroRunLength
                                run &= 15
                            }
                            let before = cost[start] + zeroedError[position - 1] - zeroedError[start] + Float(runBits)
                            guard before < best else { continue }
                            for candidate in 0..<candidates {
                                let value = candidateValue[candidate]
                                let size = Int32.bitWidth - value.leadingZeroBitCount
                                let codeLength = lengths[run << 4 | size]
                                guard codeLength > 0 else { continue }
                                let total = before + Float(codeLength) + candidateCost[candidate]
                                if total < best {
                                    best = total
                                    bestValue = value
                                    bestStart = Int32(start)
                                }
                            }
                        }
                        guard best < .infinity else { continue }
                        cost[position] = best
                        chosen[position] = scaled < 0 ? -bestValue : bestValue
                        runStart[position] = bestStart
                        starts[startCount] = Int32(position)
                        startCount += 1
                    }
                    // Where the block ends: after the nonzero value whose cost, the rest zeroed and an end-of-block
                    // (none after position 63), is lowest; or at once.
                    var bestEnd = zeroedError[63] + endOfBlock, last = 0
                    for index in 1..<startCount {
                        let position = Int(starts[index])
                        let total = cost[position] + zeroedError[63] - zeroedError[position] + (position < 63 ? endOfBlock : 0)
                        if total < bestEnd {
                            bestEnd = total
                            last = position
                        }
                    }
                    for position in 1..<64 { output[zigzag[position]] = 0 }
                    while last > 0 {
                        output[zigzag[last]] = Int16(chosen[last])
                        last = Int(runStart[last])
                    }
                }
            }
        }
    }
}
