/// Separable Lanczos3 resampling on 8-bit pixels (premultiplied when there is alpha), with an integer box
/// pre-shrink for large factors. Cost: about (taps × channels) multiply-adds per pixel per pass.
enum Resampler {
    /// A box pre-shrink runs when the remaining factor is at least this, reducing by factor/2 (Pillow's
    /// "reducing gap" of 2), so the Lanczos pass always keeps at least 2x of headroom.
    static let boxShrinkThreshold = 4.0

    /// The box pre-shrink `resize` applies for `plan` (1 for none): a decoder may apply it while decoding instead.
    static func boxReduction(for plan: ResizePlan) -> Int {
        let factor = min(plan.cropWidth / Double(plan.outputWidth), plan.cropHeight / Double(plan.outputHeight))
        return factor >= boxShrinkThreshold ? Int(factor / 2) : 1
    }

    static func resize(_ image: PixelBuffer, plan: ResizePlan, budget: WorkBudget) throws(ImageError) -> PixelBuffer {
        var source = image
        var plan = plan
        let reduction = boxReduction(for: plan)
        if reduction > 1 {
            source = try boxShrink(source, by: reduction, budget: budget)
            plan = plan.scaled(toSourceWidth: source.width, height: source.height, fromWidth: image.width, height: image.height)
        }
        return try lanczos(source, plan: plan, budget: budget)
    }

    /// Averages `factor`x`factor` blocks (partial blocks at the right/bottom edges average what they have).
    static func boxShrink(_ image: PixelBuffer, by factor: Int, budget: WorkBudget) throws(ImageError) -> PixelBuffer {
        let channels = image.channels
        let outputWidth = (image.width + factor - 1) / factor
        let outputHeight = (image.height + factor - 1) / factor
        var output = PixelBuffer(width: outputWidth, height: outputHeight, channels: channels)
        var sums = [UInt32](repeating: 0, count: outputWidth * channels)
        let width = image.width, rowBytes = image.rowBytes
        for outputY in 0..<outputHeight {
            if outputY % 8 == 0 { try budget.check() }
            let firstRow = outputY * factor
            let rowCount = min(factor, image.height - firstRow)
            sums.withUnsafeMutableBufferPointer { sums in
                for index in 0..<sums.count { sums[index] = 0 }
                image.pixels.withUnsafeBufferPointer { pixels in
                    for row in firstRow..<(firstRow + rowCount) {
                        let rowStart = pixels.baseAddress! + row * rowBytes
                        for x in 0..<width {
                            let target = (x / factor) * channels
                            for channel in 0..<channels { sums[target + channel] &+= UInt32(rowStart[x * channels + channel]) }
                        }
                    }
                }
                output.pixels.withUnsafeMutableBufferPointer { destination in
                    let rowStart = outputY * outputWidth * channels
                    for outputX in 0..<outputWidth {
                        let columns = UInt32(min(factor, width - outputX * factor))
                        let area = columns * UInt32(rowCount)
                        for channel in 0..<channels {
                            destination[rowStart + outputX * channels + channel] =
                                UInt8((sums[outputX * channels + channel] + area / 2) / area)
                        }
                    }
                }
            }
        }
        return output
    }

    /// Vertical pass first (a straight multiply-add over whole rows, which the compiler vectorises), on the
    /// columns the horizontal pass reads; then the horizontal pass on only the output rows, 4 lanes at a time.
    static func lanczos(_ image: PixelBuffer, plan: ResizePlan, budget: WorkBudget) throws(ImageError) -> PixelBuffer {
        let kernels = LanczosKernels(sourceWidth: image.width, sourceHeight: image.height, channels: image.channels, plan: plan)
        var intermediate = kernels.makeIntermediate()
        var accumulator = [Float](repeating: 0, count: kernels.spanBytes)
        for y in 0..<plan.outputHeight {
            if y % 16 == 0 { try budget.check() }
            image.pixels.withUnsafeBufferPointer { pixels in
                let firstRow = pixels.baseAddress! + Int(kernels.vertical.starts[y]) * image.rowBytes
                kernels.verticalRow(y, firstRow: firstRow, rowBytes: image.rowBytes, accumulator: &accumulator, into: &intermediate)
            }
        }
        return try kernels.horizontalPass(intermediate, budget: budget)
    }

    /// Rounds to nearest and clamps to 0...255 without a trapping float→int conversion: adding 2^23 puts the
    /// rounded integer in the low mantissa bits (vectorisable, unlike `Int32(_:)` with its range check).
    @inline(__always)
    static func clampToByte(_ value: Float) -> UInt8 {
        UInt8(truncatingIfNeeded: (min(255, max(0, value)) + 8_388_608).bitPattern)
    }
}
