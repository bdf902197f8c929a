/// PNG's five row filters (RFC 2083 §6) and libpng's heuristic for choosing one per row: the filter whose output
/// bytes, read as signed, have the smallest sum of magnitudes. That keeps the adaptive choice the peers make, so
/// deflate sees the same kind of data.
///
/// Cost: each row is filtered five ways, about 10 ns a byte in all.
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

    /// Paeth for 3 or 4 bytes a pixel: each pixel's channels as lanes, the predictor's distances written as
    /// |above - aboveLeft|, |left - aboveLeft| and |left + above - 2 aboveLeft| so the choice is lane selects.
    private static func unfilterPaethByPixel(_ current: UnsafeMutablePointer<UInt8>, above: UnsafePointer<UInt8>, count: Int,
                                             bytesPerPixel: Int) {
        @inline(__always) func load(_ pointer: UnsafePointer<UInt8>) -> SIMD4<Int16> {
            SIMD4(Int16(pointer[0]), Int16(pointer[1]), Int16(pointer[2]), bytesPerPixel == 4 ? Int16(pointer[3]) : 0)
        }
        @inline(__always) func magnitude(_ value: SIMD4<Int16>) -> SIMD4<Int16> { value.replacing(with: 0 &- value, where: value .< 0) }
        var left = load(current)
        var upLeft = load(above)
        var index = bytesPerPixel
        while index + bytesPerPixel <= count {
            let up = load(above + index)
            let toLeft = magnitude(up &- upLeft), toUp = magnitude(left &- upLeft)
            let toUpLeft = magnitude(left &+ up &- upLeft &- upLeft)
            let notLeft = up.replacing(with: upLeft, where: toUp .> toUpLeft)
            let prediction = notLeft.replacing(with: left, where: (toLeft .<= toUp) .& (toLeft .<= toUpLeft))
            let value = (load(current + index) &+ prediction) & 0xFF
            current[index] = UInt8(truncatingIfNeeded: value[0])
            current[index + 1] = UInt8(truncatingIfNeeded: value[1])
            current[index + 2] = UInt8(truncatingIfNeeded: value[2])
            if bytesPerPixel == 4 { current[index + 3] = UInt8(truncatingIfNeeded: value[3]) }
            left = value
            upLeft = up
            index += bytesPerPixel
        }
    }
}
