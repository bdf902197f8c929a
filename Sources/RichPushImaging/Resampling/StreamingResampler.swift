/// `Resampler.lanczos` fed by a decoder, band by band: each band of source rows is reduced by the vertical pass
/// while it is still in cache, and only a window of rows (the taps of one output row plus one band) is kept, so
/// a large source never exists at full size. Gives the same bytes as decoding whole and calling `lanczos`.
///
/// Cost: the window (`(taps + bandRows) × rowBytes`, about 180 KB for a 2016-wide RGB source at 1.94x) and the vertical
/// pass's output (`outputHeight` rows of the columns read), instead of the whole decoded source.
struct StreamingResampler {
    private let kernels: LanczosKernels
    private let rowBytes: Int
    private let windowCapacity: Int
    private var window: [UInt8]
    /// The source row held in the window's first slot, and how many rows it holds.
    private var windowFirstRow = 0
    private var windowRows = 0
    private var nextOutputRow = 0
    private var intermediate: [UInt8]
    private var accumulator: [Float]
    /// For each output row, the lowest source row it or any later output row reads (rows below it can be dropped).
    private let lowestRowStillRead: [Int]

    /// A resize of a `sourceWidth`x`sourceHeight` image with `channels` channels by `plan` (in that image's
    /// pixels), to be fed at most `bandRows` rows at a time.
    init(sourceWidth: Int, sourceHeight: Int, channels: Int, plan: ResizePlan, bandRows: Int) {
        kernels = LanczosKernels(sourceWidth: sourceWidth, sourceHeight: sourceHeight, channels: channels, plan: plan)
        rowBytes = sourceWidth * channels
        windowCapacity = kernels.vertical.maximumTaps + bandRows
        window = [UInt8](repeating: 0, count: windowCapacity * rowBytes)
        intermediate = kernels.makeIntermediate()
        accumulator = [Float](repeating: 0, count: kernels.spanBytes)
        var lowest = [Int](repeating: sourceHeight, count: plan.outputHeight + 1)
        for y in stride(from: plan.outputHeight - 1, through: 0, by: -1) {
            lowest[y] = min(lowest[y + 1], Int(kernels.vertical.starts[y]))
        }
        lowestRowStillRead = lowest
    }

    /// True once every output row of the vertical pass is made (later source rows are not read).
    var hasAllRows: Bool { nextOutputRow == kernels.outputHeight }

    /// Lets `fill` write the next source rows (at most its second argument, one after another) into the window and
    /// return how many it wrote; then makes every output row whose source rows have all arrived.
    mutating func receiveRows(
        upTo count: Int, _ fill: (UnsafeMutablePointer<UInt8>, Int) throws(ImageError) -> Int
    ) throws(ImageError) -> Int {
        if windowRows + count > windowCapacity {
            // Slide the window: drop the rows no later output row reads.
            let drop = min(windowRows, max(0, lowestRowStillRead[nextOutputRow] - windowFirstRow))
            if drop > 0 {
                let kept = (windowRows - drop) * rowBytes, offset = drop * rowBytes
                window.withUnsafeMutableBufferPointer { window in
                    guard let base = window.baseAddress else { return }
                    base.update(from: base + offset, count: kept)
                }
                windowFirstRow += drop
                windowRows -= drop
            }
        }
        let room = min(count, windowCapacity - windowRows)
        guard room > 0 else { return 0 }
        let rowBytes = rowBytes, windowRows = windowRows
        let written = try window.withUnsafeMutableBufferPointer { (window) throws(ImageError) -> Int in
            try fill(window.baseAddress! + windowRows * rowBytes, room)
        }
        self.windowRows += max(0, min(written, room))
        while nextOutputRow < kernels.outputHeight {
            let y = nextOutputRow, start = Int(kernels.vertical.starts[y])
            guard start + Int(kernels.vertical.counts[y]) <= windowFirstRow + self.windowRows else { break }
            window.withUnsafeBufferPointer { window in
                kernels.verticalRow(y, firstRow: window.baseAddress! + (start - windowFirstRow) * rowBytes,
                                    rowBytes: rowBytes, accumulator: &accumulator, into: &intermediate)
            }
            nextOutputRow += 1
        }
        return written
    }

    /// The horizontal pass, once every source row has been received.
    func finish(budget: WorkBudget) throws(ImageError) -> PixelBuffer {
        guard hasAllRows else { throw .corrupt(reason: "the image ended before the rows the resize reads") }
        return try kernels.horizontalPass(intermediate, budget: budget)
    }
}
