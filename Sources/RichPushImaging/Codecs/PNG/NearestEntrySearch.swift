/// The nearest of up to 256 premultiplied RGBA colours to a query (`distance`: the error shown over black and over
/// white), for `PaletteQuantizer`.
///
/// The entries are kept sorted by their second channel (green, the one that varies most in images) and a query
/// looks outwards from its own green in both directions, stopping each way once the green difference alone is no
/// closer than the best so far. Cost: a binary search, then typically 10-40 distance computations instead of 256;
/// no allocation per query.
struct NearestEntrySearch {
    /// Sorted entries: green, red, blue, alpha.
    private let sorted: [SIMD4<Int32>]
    /// The entry's position in the caller's list, per sorted entry.
    private let positions: [Int]

    init(premultiplied entries: [SIMD4<Int32>]) {
        let order = entries.indices.sorted { entries[$0][1] < entries[$1][1] }
        sorted = order.map { SIMD4(entries[$0][1], entries[$0][0], entries[$0][2], entries[$0][3]) }
        positions = order
    }

    /// The position in the entries given to `init` of the one nearest to `colour` (R, G, B, A); ties go to the
    /// lower green.
    func nearest(_ colour: SIMD4<Int32>) -> Int {
        let query = SIMD4(colour[1], colour[0], colour[2], colour[3])
        return sorted.withUnsafeBufferPointer { sorted in
            var low = 0, high = sorted.count
            while low < high {
                let middle = (low + high) / 2
                if sorted[middle][0] < query[0] { low = middle + 1 } else { high = middle }
            }
            var best = Int32.max, chosen = 0
            var up = low, down = low - 1
            while up < sorted.count || down >= 0 {
                if up < sorted.count {
                    let difference = sorted[up] &- query
                    if difference[0] * difference[0] >= best {
                        up = sorted.count
                    } else {
                        let distance = Self.distance(difference)
                        if distance < best { best = distance; chosen = up }
                        up += 1
                    }
                }
                if down >= 0 {
                    let difference = sorted[down] &- query
                    if difference[0] * difference[0] >= best {
                        down = -1
                    } else {
                        let distance = Self.distance(difference)
                        if distance < best { best = distance; chosen = down }
                        down -= 1
                    }
                }
            }
            return positions[chosen]
        }
    }

    /// The squared error over black (the premultiplied colours') plus over white (there each colour channel shows
    /// its premultiplied value minus alpha): what the flattened comparisons `PalettePNG` scores with see. Its green
    /// terms alone are at least the green difference squared, which the search's stopping rule relies on.
    @inline(__always)
    private static func distance(_ difference: SIMD4<Int32>) -> Int32 {
        var overBlack = difference
        overBlack[3] = 0
        var overWhite = difference &- SIMD4(repeating: difference[3])
        overWhite[3] = 0
        return (overBlack &* overBlack).wrappedSum() &+ (overWhite &* overWhite).wrappedSum()
    }
}
