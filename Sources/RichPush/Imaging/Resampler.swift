/// Separable Lanczos3 resampling on 8-bit pixels (premultiplied when there is alpha), with an integer box
/// pre-shrink for large factors. Cost: about (taps × channels) multiply-adds per pixel per pass.
enum Resampler {
    /// A box pre-shrink runs when the remaining factor is at least this, reducing by factor/2 (Pillow's
    /// "reducing gap" of 2), so the Lanczos pass always keeps at least 2x of headroom.
    static let boxShrinkThreshold = 4.0

    static func resize(_ image: PixelBuffer, plan: ResizePlan, budget: WorkBudget) throws(ImageError) -> PixelBuffer {
        var source = image
        var plan = plan
        let factor = min(plan.cropWidth / Double(plan.outputWidth), plan.cropHeight / Double(plan.outputHeight))
        if factor >= boxShrinkThreshold {
            let reduction = Int(factor / 2)
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

    static func lanczos(_ image: PixelBuffer, plan: ResizePlan, budget: WorkBudget) throws(ImageError) -> PixelBuffer {
        let channels = image.channels
        let horizontal = ResamplingKernel(sourceSize: image.width, offset: plan.cropX, extent: plan.cropWidth, outputSize: plan.outputWidth)
        let vertical = ResamplingKernel(sourceSize: image.height, offset: plan.cropY, extent: plan.cropHeight, outputSize: plan.outputHeight)
        let firstRow = vertical.firstSourceIndex
        let rowCount = max(0, vertical.endSourceIndex - firstRow)
        let outputWidth = plan.outputWidth
        let intermediateRowBytes = outputWidth * channels
        var intermediate = [UInt8](repeating: 0, count: rowCount * intermediateRowBytes)
        let shift = ResamplingKernel.precisionBits
        let half: Int32 = 1 << (shift - 1)

        // Horizontal pass over only the source rows the vertical pass reads.
        var band = 0
        while band < rowCount {
            try budget.check()
            let bandEnd = min(rowCount, band + 32)
            image.pixels.withUnsafeBufferPointer { pixels in
                intermediate.withUnsafeMutableBufferPointer { intermediate in
                    horizontal.starts.withUnsafeBufferPointer { starts in
                        horizontal.counts.withUnsafeBufferPointer { counts in
                            horizontal.weights.withUnsafeBufferPointer { weights in
                                for row in band..<bandEnd {
                                    let sourceRow = pixels.baseAddress! + (firstRow + row) * image.rowBytes
                                    let destinationRow = intermediate.baseAddress! + row * intermediateRowBytes
                                    for x in 0..<outputWidth {
                                        var pointer = sourceRow + Int(starts[x]) * channels
                                        var weight = weights.baseAddress! + x * horizontal.maximumTaps
                                        let taps = Int(counts[x])
                                        var red = half, green = half, blue = half
                                        let output = destinationRow + x * channels
                                        if channels == 4 {
                                            var alpha = half
                                            for _ in 0..<taps {
                                                let w = weight.pointee
                                                red &+= Int32(pointer[0]) &* w
                                                green &+= Int32(pointer[1]) &* w
                                                blue &+= Int32(pointer[2]) &* w
                                                alpha &+= Int32(pointer[3]) &* w
                                                pointer += 4
                                                weight += 1
                                            }
                                            output[3] = UInt8(clamping: alpha >> shift)
                                        } else {
                                            for _ in 0..<taps {
                                                let w = weight.pointee
                                                red &+= Int32(pointer[0]) &* w
                                                green &+= Int32(pointer[1]) &* w
                                                blue &+= Int32(pointer[2]) &* w
                                                pointer += 3
                                                weight += 1
                                            }
                                        }
                                        output[0] = UInt8(clamping: red >> shift)
                                        output[1] = UInt8(clamping: green >> shift)
                                        output[2] = UInt8(clamping: blue >> shift)
                                    }
                                }
                            }
                        }
                    }
                }
            }
            band = bandEnd
        }

        // Vertical pass: accumulate whole rows so the inner loop is a straight vectorisable multiply-add.
        var output = PixelBuffer(width: outputWidth, height: plan.outputHeight, channels: channels)
        var accumulator = [Int32](repeating: 0, count: intermediateRowBytes)
        for y in 0..<plan.outputHeight {
            if y % 16 == 0 { try budget.check() }
            intermediate.withUnsafeBufferPointer { intermediate in
                accumulator.withUnsafeMutableBufferPointer { accumulator in
                    output.pixels.withUnsafeMutableBufferPointer { destination in
                        let sums = accumulator.baseAddress!
                        for index in 0..<intermediateRowBytes { sums[index] = half }
                        let start = Int(vertical.starts[y]) - firstRow
                        for tap in 0..<Int(vertical.counts[y]) {
                            let w = vertical.weights[y * vertical.maximumTaps + tap]
                            let row = intermediate.baseAddress! + (start + tap) * intermediateRowBytes
                            for index in 0..<intermediateRowBytes { sums[index] &+= Int32(row[index]) &* w }
                        }
                        let target = destination.baseAddress! + y * intermediateRowBytes
                        for index in 0..<intermediateRowBytes { target[index] = UInt8(clamping: sums[index] >> shift) }
                    }
                }
            }
        }
        return output
    }
}
