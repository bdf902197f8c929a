/// PNG's five row filters (RFC 2083 §6) and libpng's heuristic for choosing one per row: the filter whose output
/// bytes, read as signed, have the smallest sum of magnitudes. That keeps the adaptive choice the peers make, so
/// deflate sees the same kind of data.
///
/// Cost: each row is filtered five ways and each way's bytes summed: linear in the row's bytes (docs/benchmarks.md,
/// "PNG: libdeflate, Huffman-only coding and a fast decode path").
enum PNGRowFilter: UInt8, CaseIterable {
    case none = 0, sub, up, average, paeth

    /// Writes `row` filtered the best way into `output` (1 + `row.count` bytes: the filter type, then the bytes),
    /// using `scratch` (5 × `row.count` bytes). `previous` is the unfiltered row above, or nil for the first row.
    static func filterBest(
        _ row: UnsafeBufferPointer<UInt8>, previous: UnsafeBufferPointer<UInt8>?, bytesPerPixel: Int,
        scratch: UnsafeMutableBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>
    ) {
        let count = row.count
        var bestFilter = PNGRowFilter.none
        var bestSum = Int.max
        for filter in allCases {
            let candidate = UnsafeMutableBufferPointer(rebasing: scratch[(Int(filter.rawValue) * count)..<(Int(filter.rawValue + 1) * count)])
            let sum = filter.apply(row, previous: previous, bytesPerPixel: bytesPerPixel, into: candidate)
            if sum < bestSum {
                bestSum = sum
                bestFilter = filter
            }
        }
        output[0] = bestFilter.rawValue
        let chosen = UnsafeBufferPointer(rebasing: scratch[(Int(bestFilter.rawValue) * count)..<(Int(bestFilter.rawValue + 1) * count)])
        UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: output[1...])).copyMemory(from: UnsafeRawBufferPointer(chosen))
    }

    /// Filters `row` into `output` and returns the heuristic's sum.
    func apply(
        _ row: UnsafeBufferPointer<UInt8>, previous: UnsafeBufferPointer<UInt8>?, bytesPerPixel: Int,
        into output: UnsafeMutableBufferPointer<UInt8>
    ) -> Int {
        let count = row.count
        var sum = 0
        @inline(__always) func put(_ index: Int, _ value: UInt8) {
            output[index] = value
            sum &+= value < 128 ? Int(value) : 256 - Int(value)
        }
        switch self {
        case .none:
            for index in 0..<count { put(index, row[index]) }
        case .sub:
            for index in 0..<count {
                put(index, row[index] &- (index >= bytesPerPixel ? row[index - bytesPerPixel] : 0))
            }
        case .up:
            for index in 0..<count { put(index, row[index] &- (previous?[index] ?? 0)) }
        case .average:
            for index in 0..<count {
                let left = index >= bytesPerPixel ? Int(row[index - bytesPerPixel]) : 0
                let above = Int(previous?[index] ?? 0)
                put(index, row[index] &- UInt8((left + above) >> 1))
            }
        case .paeth:
            for index in 0..<count {
                let left = index >= bytesPerPixel ? row[index - bytesPerPixel] : 0
                let above = previous?[index] ?? 0
                let aboveLeft = index >= bytesPerPixel ? (previous?[index - bytesPerPixel] ?? 0) : 0
                put(index, row[index] &- Self.paethPredictor(left, above, aboveLeft))
            }
        }
        return sum
    }

    /// The neighbour closest to left + above - aboveLeft, ties going left, then above.
    @inline(__always)
    static func paethPredictor(_ left: UInt8, _ above: UInt8, _ aboveLeft: UInt8) -> UInt8 {
        let estimate = Int(left) + Int(above) - Int(aboveLeft)
        let toLeft = abs(estimate - Int(left)), toAbove = abs(estimate - Int(above)), toAboveLeft = abs(estimate - Int(aboveLeft))
        if toLeft <= toAbove && toLeft <= toAboveLeft { return left }
        return toAbove <= toAboveLeft ? above : aboveLeft
    }
}

extension PNGRowFilter {
    /// Reverses the filter on `row` in place. `previous` is the unfiltered row above, or nil for the first row.
    ///
    /// Paeth is most rows of most photographs and the hot loop of a PNG decode, so RGB and RGBA rows run it a
    /// pixel at a time with the channels as SIMD lanes (`unfilterPaethByPixel`).
    func unfilter(_ row: UnsafeMutableBufferPointer<UInt8>, previous: UnsafeBufferPointer<UInt8>?, bytesPerPixel: Int) {
        guard let current = row.baseAddress, row.count > 0 else { return }
        let count = row.count, step = min(bytesPerPixel, count)
        guard let above = previous?.baseAddress else {
            // The row above is all zeros: Up and None change nothing, Average halves the left, Paeth is Sub.
            switch self {
            case .none, .up: return
            case .sub, .paeth: for index in step..<count { current[index] &+= current[index - step] }
            case .average: for index in step..<count { current[index] &+= current[index - step] >> 1 }
            }
            return
        }
        switch self {
        case .none:
            return
        case .sub:
            for index in step..<count { current[index] &+= current[index - step] }
        case .up:
            for index in 0..<count { current[index] &+= above[index] }
        case .average:
            for index in 0..<step { current[index] &+= above[index] >> 1 }
            for index in step..<count {
                current[index] &+= UInt8(truncatingIfNeeded: (Int(current[index - step]) + Int(above[index])) >> 1)
            }
        case .paeth:
            for index in 0..<step { current[index] &+= above[index] }
            if step == 3 || step == 4 {
                Self.unfilterPaethByPixel(current, above: above, count: count, bytesPerPixel: step)
                return
            }
            for index in step..<count {
                let left = current[index - step]
                current[index] &+= Self.paethPredictor(left, above[index], above[index - step])
            }
        }
    }

    /// Paeth for 3 or 4 bytes a pixel: each pixel's channels as lanes (`paethPrediction`). Pixels are loaded 4
    /// bytes at a time (the row's last 3-byte pixel a byte at a time) and stored exactly: a 4-byte store that
    /// overlapped the next 3-byte pixel would stall that pixel's load, which the store cannot be forwarded to.
    private static func unfilterPaethByPixel(_ current: UnsafeMutablePointer<UInt8>, above: UnsafePointer<UInt8>, count: Int,
                                             bytesPerPixel step: Int) {
        // A 3-byte row of one pixel has no room for a 4-byte load.
        guard count >= 2 * step else { return unfilterPaethBytes(current, above: above, from: step, to: count, bytesPerPixel: step) }
        let byteMask = SIMD8<Int16>(repeating: 0xFF)
        var left = loadPixel(current), aboveLeft = loadPixel(above)
        var index = step
        while index + 4 <= count {
            let up = loadPixel(above + index)
            let value = loadPixel(current + index) &+ paethPrediction(left: left, above: up, aboveLeft: aboveLeft)
            storePixels(value, current + index, nil, bytesPerPixel: step)
            left = value & byteMask
            aboveLeft = up
            index += step
        }
        unfilterPaethBytes(current, above: above, from: index, to: count, bytesPerPixel: step)
    }

    /// Paeth on two consecutive rows at once, the second a pixel behind the first, as the two halves of one
    /// vector: the pixel of the second row needs only pixels of the first that are already done. Paeth's chain of
    /// dependent steps from one pixel to the next is what bounds its speed, and two rows share one chain.
    /// `first` is the row below `above` and `second` the row below `first`; both are Paeth-filtered.
    static func unfilterPaethRowPair(_ first: UnsafeMutablePointer<UInt8>, _ second: UnsafeMutablePointer<UInt8>,
                                     above: UnsafePointer<UInt8>, count: Int, bytesPerPixel step: Int) {
        precondition(step == 3 || step == 4)
        for index in 0..<step { first[index] &+= above[index] }
        // Rows too short for the loop below to run once are done a byte at a time.
        guard count >= step + 4 else {
            unfilterPaethBytes(first, above: above, from: step, to: count, bytesPerPixel: step)
            for index in 0..<step { second[index] &+= first[index] }
            return unfilterPaethBytes(second, above: first, from: step, to: count, bytesPerPixel: step)
        }
        let byteMask = SIMD8<Int16>(repeating: 0xFF)
        // The second row's first pixel has no left or above-left neighbour: both count as 0 (the high lanes).
        var left = loadPixel(first), aboveLeft = loadPixel(above)
        var index = step   // the first row's pixel; the second row's is index - step
        while index + 4 <= count {
            // Above the second row's pixel is the first row's previous one, which `left` holds.
            let up = joined(loadPixel(above + index), left)
            let raw = joined(loadPixel(first + index), loadPixel(second + index - step))
            let value = raw &+ paethPrediction(left: left, above: up, aboveLeft: aboveLeft)
            storePixels(value, first + index, second + index - step, bytesPerPixel: step)
            left = value & byteMask
            aboveLeft = up
            index += step
        }
        // The rest of the first row, then the rest of the second, whose row above is now complete.
        unfilterPaethBytes(first, above: above, from: index, to: count, bytesPerPixel: step)
        unfilterPaethBytes(second, above: first, from: index - step, to: count, bytesPerPixel: step)
    }

    /// Paeth a byte at a time from `start` (at least `step`) to `end`.
    private static func unfilterPaethBytes(_ current: UnsafeMutablePointer<UInt8>, above: UnsafePointer<UInt8>,
                                           from start: Int, to end: Int, bytesPerPixel step: Int) {
        for index in start..<max(start, end) {
            current[index] &+= paethPredictor(current[index - step], above[index], above[index - step])
        }
    }

    // The lane helpers below are written with bit casts and comparisons against vectors: `SIMD8`'s
    // `lowHalf`/`highHalf` and its comparisons with a scalar compile to a loop over the lanes.

    /// The predictor on lanes: the distances written as |above - aboveLeft|, |left - aboveLeft| and
    /// |left + above - 2 aboveLeft|, so the choice is two lane selects.
    @inline(__always)
    private static func paethPrediction(left: SIMD8<Int16>, above: SIMD8<Int16>, aboveLeft: SIMD8<Int16>) -> SIMD8<Int16> {
        let zero = SIMD8<Int16>()
        let fromLeft = left &- aboveLeft, fromAbove = above &- aboveLeft, fromBoth = fromLeft &+ fromAbove
        let toLeft = fromAbove.replacing(with: zero &- fromAbove, where: fromAbove .< zero)
        let toAbove = fromLeft.replacing(with: zero &- fromLeft, where: fromLeft .< zero)
        let toAboveLeft = fromBoth.replacing(with: zero &- fromBoth, where: fromBoth .< zero)
        let notLeft = above.replacing(with: aboveLeft, where: toAbove .> toAboveLeft)
        return notLeft.replacing(with: left, where: (toLeft .<= toAbove) .& (toLeft .<= toAboveLeft))
    }

    /// The 4 bytes at `pointer` as the low 4 lanes, the high 4 zero (the caller keeps the bytes inside the buffer).
    @inline(__always)
    private static func loadPixel(_ pointer: UnsafePointer<UInt8>) -> SIMD8<Int16> {
        let bytes = UInt64(UnsafeRawPointer(pointer).loadUnaligned(as: UInt32.self))
        return SIMD8<Int16>(truncatingIfNeeded: unsafeBitCast(bytes, to: SIMD8<UInt8>.self))
    }

    @inline(__always)
    private static func loadPixel(_ pointer: UnsafeMutablePointer<UInt8>) -> SIMD8<Int16> { loadPixel(UnsafePointer(pointer)) }

    /// The low 4 lanes of `low`, then the low 4 lanes of `high`.
    @inline(__always)
    private static func joined(_ low: SIMD8<Int16>, _ high: SIMD8<Int16>) -> SIMD8<Int16> {
        let low = unsafeBitCast(low, to: SIMD2<UInt64>.self), high = unsafeBitCast(high, to: SIMD2<UInt64>.self)
        return unsafeBitCast(SIMD2(low[0], high[0]), to: SIMD8<Int16>.self)
    }

    /// Stores the low 4 lanes' pixel at `low` and the high 4 lanes' at `high`, if given, as bytes.
    @inline(__always)
    private static func storePixels(_ value: SIMD8<Int16>, _ low: UnsafeMutablePointer<UInt8>, _ high: UnsafeMutablePointer<UInt8>?,
                                    bytesPerPixel: Int) {
        let pair = unsafeBitCast(SIMD8<UInt8>(truncatingIfNeeded: value), to: UInt64.self)
        @inline(__always) func store(_ pixel: UInt64, at pointer: UnsafeMutablePointer<UInt8>) {
            let raw = UnsafeMutableRawPointer(pointer)
            if bytesPerPixel == 4 {
                raw.storeBytes(of: UInt32(truncatingIfNeeded: pixel), as: UInt32.self)
            } else {
                raw.storeBytes(of: UInt16(truncatingIfNeeded: pixel), as: UInt16.self)
                raw.storeBytes(of: UInt8(truncatingIfNeeded: pixel >> 16), toByteOffset: 2, as: UInt8.self)
            }
        }
        store(pair, at: low)
        if let high { store(pair >> 32, at: high) }
    }
}
