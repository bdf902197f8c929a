extension PixelBuffer {
    /// Hands every row to a C encoder in bands of `bandRows`, checking `budget` between bands.
    ///
    /// The libraries take non-const row pointers but only read them, so no copy of the pixels is made.
    /// Returns false as soon as `write` reports fewer rows than it was given.
    func writeRows(
        inBandsOf bandRows: Int, budget: WorkBudget,
        _ write: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, Int32) -> Int32
    ) throws(ImageError) -> Bool {
        var row = 0
        while row < height {
            try budget.check()
            let count = min(bandRows, height - row)
            let written = pixels.withUnsafeBufferPointer { pixels in
                let base = UnsafeMutablePointer(mutating: pixels.baseAddress!)
                var rows = (0..<count).map { Optional(base + (row + $0) * rowBytes) }
                return write(&rows, Int32(count))
            }
            guard written == Int32(count) else { return false }
            row += count
        }
        return true
    }
}
