/// A plausibility check for the damage libjpeg cannot see: a bit flip in a scan's entropy-coded data usually
/// decodes without a warning (there is no checksum, and Huffman codes fall back into step after a few blocks), but
/// from the flipped MCU on every DC value is off by the same amount, so the rest of the image in MCU order carries a
/// colour cast over most of the image (docs/benchmarks.md, "JPEG integrity").
///
/// The cast's edge is a staircase on the MCU grid: along the seam below the damaged MCU row, left of the damaged MCU,
/// and along the seam above it, right of it. Per MCU column and seam the check takes the step across the seam (the
/// mean over the MCU's width of the row below minus the row above, less the gradient just inside the two rows, per
/// channel); for each MCU row and split column it compares the mean step along both halves of the staircase, times
/// the share of columns stepping that way on the sparser half, with how much those steps vary plus how large the
/// steps on the other two halves of the seams are (the larger of the two halves' means, so a short half holding a
/// text line's edge is not diluted by a long smooth one). A natural edge on the MCU grid (a horizon, a banner's bar)
/// runs along one seam, and a text line's edge crosses only some columns, so they score low; a cast moves every
/// column and scores high.
///
/// In a noisy photograph the per-column steps vary by several levels, so the first score, which divides by that
/// spread and by the mean step magnitude on the control halves, hides a cast of several levels. A second score
/// divides by what noise does to the means instead: twice the control halves' signed means (noise averages out
/// there, a natural edge does not) and three standard errors of the staircase's means. A file is damaged when
/// either score reaches the threshold (docs/benchmarks.md, "JPEG integrity").
///
/// It cannot see damage in the first or last MCU row or the two MCU columns at either side (a cast from the first
/// column of a row is one full-width step along a seam, as a banner's edge is), nor at 1/8 and 2/8 scale.
///
/// Cost: per seam (one row in 16 at full size, 4:2:0) three rows copied, one branch-free pass over four rows'
/// samples and O(columns) arithmetic per split column: within this machine's run-to-run noise on the CPU time of
/// rendering the corpus JPEGs (docs/benchmarks.md, "JPEG integrity"). Memory: three rows, one row of sums, and two
/// seams of three doubles per MCU column.
struct JPEGSeamCheck {
    /// Scores at or above this are damage. Every valid JPEG of Fixtures/ and the conformance set, the tests'
    /// synthetic images and 600 generated files (text, faces, gradients, noise, line art, dark text on white;
    /// q20-92, 4:4:4 and 4:2:0) score well under it on both scores at the scales the check runs at, and the damaged
    /// files of the corpus that no warning caught score over it (docs/benchmarks.md, "JPEG integrity").
    static let threshold = 1.0
    /// Added to the denominator so that flat images (steps of a level or two) cannot score.
    private static let floor = 3.0
    /// The noise-aware score's: smaller, since its control term counts twice. Of the floors and control weights
    /// measured, this one left the most margin under the threshold on valid files (docs/benchmarks.md, "JPEG
    /// integrity").
    private static let noiseFloor = 1.0
    /// Fewer MCU columns give too few steps to tell a cast from a flat design's edges: small synthetic fixtures of
    /// four flat colours scored close to the threshold (docs/benchmarks.md, "JPEG integrity").
    static let minimumColumns = 8
    /// Splits this close to either side are not tried: one half would be too few steps to tell anything.
    private static let edgeColumns = 2
    /// A column steps when its mean step across the seam is more than this many levels (`score`'s shares).
    private static let stepLevel = 1.0

    private let width: Int
    private let cellWidth: Int
    private let cellHeight: Int
    private let columns: Int
    /// The last three rows received, oldest first: the two above a seam and the first below it.
    private var recent: [UInt8]
    private var rowsReceived = 0
    private var previousSeam: [Double]?
    /// The highest score so far, and the MCU row and column of its staircase.
    private(set) var worstScore = 0.0
    private(set) var worstPlace = (row: 0, column: 0)

    /// A check over RGB rows `width` wide and `height` high, decoded with DCT blocks of `blockSize` output pixels
    /// (the scale numerator) in MCUs of `mcuBlocks` blocks; nil when the image has too few MCUs (`minimumColumns`
    /// columns, three rows) or the blocks are one or two pixels (1/8 and 2/8 scale: too few rows inside a block to
    /// tell the natural gradient from a step; a synthetic test image scored 0.98 at 1/8, and valid pages of dark
    /// text on white reached 1.0 at 2/8 in 21 of 140 files, none at the larger scales).
    init?(width: Int, height: Int, blockSize: Int, mcuBlocks: (horizontal: Int, vertical: Int)) {
        let cellWidth = blockSize * mcuBlocks.horizontal, cellHeight = blockSize * mcuBlocks.vertical
        guard blockSize >= 3, width / cellWidth >= Self.minimumColumns, height / cellHeight >= 3 else { return nil }
        self.width = width
        self.cellWidth = cellWidth
        self.cellHeight = cellHeight
        columns = width / cellWidth
        recent = [UInt8](repeating: 0, count: 3 * width * 3)
    }

    var isDamaged: Bool { worstScore >= Self.threshold }

    /// Takes the next `count` rows (RGB, `rowBytes` apart), in order from the top.
    mutating func receive(_ rows: UnsafePointer<UInt8>, count: Int, rowBytes: Int) {
        let rowLength = width * 3
        for index in 0..<count {
            let row = rows + index * rowBytes
            let y = rowsReceived
            rowsReceived += 1
            // Row y - 1 is the first below a seam when it is a multiple of the cell height; row y is the second.
            // The ring holds rows y - 3, y - 2 and y - 1 then (slot = row % 3).
            if y >= 3, (y - 1) % cellHeight == 0 {
                recent.withUnsafeBufferPointer { recent in
                    let base = recent.baseAddress!
                    seam(farAbove: base + ((y - 3) % 3) * rowLength, nearAbove: base + ((y - 2) % 3) * rowLength,
                         nearBelow: base + ((y - 1) % 3) * rowLength, farBelow: row, index: (y - 1) / cellHeight)
                }
            }
            // Only the last two rows above a seam and the first below it are kept.
            if (y + 2) % cellHeight < 3 {
                recent.withUnsafeMutableBufferPointer { recent in
                    (recent.baseAddress! + (y % 3) * rowLength).update(from: row, count: rowLength)
                }
            }
        }
    }

    /// The steps across one seam, then the staircases between it and the seam before.
    private mutating func seam(farAbove: UnsafePointer<UInt8>, nearAbove: UnsafePointer<UInt8>,
                               nearBelow: UnsafePointer<UInt8>, farBelow: UnsafePointer<UInt8>, index: Int) {
        // One pass over the samples in order (branch-free, so the compiler vectorises it), then sums per MCU and
        // channel.
        let samples = columns * cellWidth * 3
        var contributions = [Int32](repeating: 0, count: samples)
        contributions.withUnsafeMutableBufferPointer { contributions in
            for offset in 0..<samples {
                let above = Int32(nearAbove[offset]) - Int32(farAbove[offset])
                let step = Int32(nearBelow[offset]) - Int32(nearAbove[offset])
                let below = Int32(farBelow[offset]) - Int32(nearBelow[offset])
                // Less the gradient the rows on both sides agree on (the smaller, when both run the same way), so
                // a smooth ramp or a thin line beside the seam does not count as a step.
                let smaller = abs(above) < abs(below) ? above : below
                contributions[offset] = step - (above &* below > 0 ? smaller : 0)
            }
        }
        var steps = [Double](repeating: 0, count: columns * 3)
        for column in 0..<columns {
            var sums: (Int32, Int32, Int32) = (0, 0, 0)
            for x in (column * cellWidth)..<(column * cellWidth + cellWidth) {
                sums.0 += contributions[x * 3]
                sums.1 += contributions[x * 3 + 1]
                sums.2 += contributions[x * 3 + 2]
            }
            steps[column * 3] = Double(sums.0) / Double(cellWidth)
            steps[column * 3 + 1] = Double(sums.1) / Double(cellWidth)
            steps[column * 3 + 2] = Double(sums.2) / Double(cellWidth)
        }
        if let previousSeam { score(upper: previousSeam, lower: steps, row: index - 1) }
        previousSeam = steps
    }

    /// For MCU row `row` between seams `upper` and `lower`: the best staircase over every split column.
    private mutating func score(upper: [Double], lower: [Double], row: Int) {
        // Prefix sums per channel of the steps, their squares and the columns stepping up and down (`stepLevel`),
        // and of the steps' magnitudes, on both seams.
        func prefixes(_ steps: [Double])
            -> (sum: [Double], squares: [Double], magnitude: [Double], rising: [Double], falling: [Double]) {
            var sum = [Double](repeating: 0, count: (columns + 1) * 3), squares = sum, rising = sum, falling = sum
            var magnitude = [Double](repeating: 0, count: columns + 1)
            for column in 0..<columns {
                var absolute = 0.0
                for channel in 0..<3 {
                    let value = steps[column * 3 + channel]
                    sum[(column + 1) * 3 + channel] = sum[column * 3 + channel] + value
                    squares[(column + 1) * 3 + channel] = squares[column * 3 + channel] + value * value
                    rising[(column + 1) * 3 + channel] = rising[column * 3 + channel] + (value > Self.stepLevel ? 1 : 0)
                    falling[(column + 1) * 3 + channel] = falling[column * 3 + channel] + (value < -Self.stepLevel ? 1 : 0)
                    absolute += abs(value)
                }
                magnitude[column + 1] = magnitude[column] + absolute
            }
            return (sum, squares, magnitude, rising, falling)
        }
        let top = prefixes(upper), bottom = prefixes(lower)
        for split in Self.edgeColumns..<(columns - Self.edgeColumns) {
            // The staircase: the lower seam left of the split, the upper seam right of it (the split MCU itself is
            // the garbage the flip decoded, left out). Both halves must step the same way: the cast is the smaller
            // of their mean steps per channel, so one seam's full-width edge scores nothing. The control: the
            // other two halves, which a cast leaves smooth.
            let left = Double(split), right = Double(columns - split - 1)
            var cast = 0.0, residual = 0.0, controlMeans = 0.0
            for channel in 0..<3 {
                let leftSum = bottom.sum[split * 3 + channel]
                let rightSum = top.sum[columns * 3 + channel] - top.sum[(split + 1) * 3 + channel]
                let leftMean = leftSum / left, rightMean = rightSum / right
                if (leftMean > 0) == (rightMean > 0) {
                    // Weighted by the share of columns that step that way on the sparser half: a cast moves every
                    // column, a text line's edge along a seam only the columns its glyphs cross.
                    let counts = leftMean > 0 ? (bottom.rising, top.rising) : (bottom.falling, top.falling)
                    let leftShare = counts.0[split * 3 + channel] / left
                    let rightShare = (counts.1[columns * 3 + channel] - counts.1[(split + 1) * 3 + channel]) / right
                    cast += min(abs(leftMean), abs(rightMean)) * min(leftShare, rightShare)
                }
                let upperLeftMean = top.sum[split * 3 + channel] / left
                let lowerRightMean = (bottom.sum[columns * 3 + channel] - bottom.sum[(split + 1) * 3 + channel]) / right
                controlMeans += max(abs(upperLeftMean), abs(lowerRightMean))
                let squares = bottom.squares[split * 3 + channel]
                    + (top.squares[columns * 3 + channel] - top.squares[(split + 1) * 3 + channel])
                residual += max(0, squares - leftSum * leftMean - rightSum * rightMean)
            }
            let deviation = (residual / (left + right)).squareRoot()
            // Each control half on its own: pooled, a long smooth half hid a short one with a text line's edge on
            // it (valid pages of dark text on white scored up to 1.98; each half alone, at most 0.95).
            let control = max(top.magnitude[split] / left, (bottom.magnitude[columns] - bottom.magnitude[split + 1]) / right)
            let spread = cast / (deviation + control + Self.floor)
            let noiseAware = cast / (2 * controlMeans + 3 * deviation / min(left, right).squareRoot() + Self.noiseFloor)
            let score = max(spread, noiseAware)
            if score > worstScore {
                worstScore = score
                worstPlace = (row, split)
            }
        }
    }
}
