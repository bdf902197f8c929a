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
