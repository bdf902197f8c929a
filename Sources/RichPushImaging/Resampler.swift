import RichPushCore
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
        let channels = image.channels
        let horizontal = ResamplingKernel(sourceSize: image.width, offset: plan.cropX, extent: plan.cropWidth, outputSize: plan.outputWidth)
        let vertical = ResamplingKernel(sourceSize: image.height, offset: plan.cropY, extent: plan.cropHeight, outputSize: plan.outputHeight)
        let firstColumn = horizontal.firstSourceIndex
        let columnCount = max(0, horizontal.endSourceIndex - firstColumn)
        let spanBytes = columnCount * channels
        let outputWidth = plan.outputWidth, outputHeight = plan.outputHeight
        // One spare byte per buffer so the horizontal pass may load 4 bytes at the last RGB pixel.
        var intermediate = [UInt8](repeating: 0, count: outputHeight * spanBytes + 4)
        var accumulator = [Float](repeating: 0, count: spanBytes)

        for y in 0..<outputHeight {
            if y % 16 == 0 { try budget.check() }
            image.pixels.withUnsafeBufferPointer { pixels in
                intermediate.withUnsafeMutableBufferPointer { intermediate in
                    accumulator.withUnsafeMutableBufferPointer { accumulator in
                        vertical.weights.withUnsafeBufferPointer { weights in
                            let sums = accumulator.baseAddress!
                            let start = Int(vertical.starts[y])
                            let taps = Int(vertical.counts[y])
                            let tapWeights = weights.baseAddress! + y * vertical.maximumTaps
                            let firstRow = UnsafeRawPointer(pixels.baseAddress! + start * image.rowBytes + firstColumn * channels)
                            let rowBytes = image.rowBytes
                            // Row-at-a-time multiply-add: a straight loop the compiler vectorises.
                            for index in 0..<spanBytes { sums[index] = 0 }
                            // Two taps per sweep halves the accumulator loads and stores.
                            var tap = 0
                            while tap + 1 < taps {
                                let weight0 = tapWeights[tap], weight1 = tapWeights[tap + 1]
                                let row0 = firstRow.assumingMemoryBound(to: UInt8.self) + tap * rowBytes
                                let row1 = row0 + rowBytes
                                for index in 0..<spanBytes { sums[index] += Float(row0[index]) * weight0 + Float(row1[index]) * weight1 }
                                tap += 2
                            }
                            if tap < taps {
                                let weight = tapWeights[tap]
                                let row = firstRow.assumingMemoryBound(to: UInt8.self) + tap * rowBytes
                                for index in 0..<spanBytes { sums[index] += Float(row[index]) * weight }
                            }
                            let target = intermediate.baseAddress! + y * spanBytes
                            for index in 0..<spanBytes {
                                target[index] = clampToByte(sums[index])
                            }
                        }
                    }
                }
            }
        }

        var output = PixelBuffer(width: outputWidth, height: outputHeight, channels: channels)
        let outputRowBytes = outputWidth * channels
        var band = 0
        while band < outputHeight {
            try budget.check()
            let bandEnd = min(outputHeight, band + 32)
            intermediate.withUnsafeBufferPointer { intermediate in
                output.pixels.withUnsafeMutableBufferPointer { destination in
                    horizontal.starts.withUnsafeBufferPointer { starts in
                        horizontal.counts.withUnsafeBufferPointer { counts in
                            horizontal.weights.withUnsafeBufferPointer { weights in
                                for y in band..<bandEnd {
                                    let sourceRow = UnsafeRawPointer(intermediate.baseAddress! + y * spanBytes)
                                    let destinationRow = destination.baseAddress! + y * outputRowBytes
                                    for x in 0..<outputWidth {
                                        var pointer = sourceRow + (Int(starts[x]) - firstColumn) * channels
                                        var weight = weights.baseAddress! + x * horizontal.maximumTaps
                                        var red: Float = 0, green: Float = 0, blue: Float = 0, alpha: Float = 0
                                        let output = destinationRow + x * channels
                                        if channels == 4 {
                                            for _ in 0..<Int(counts[x]) {
                                                let w = weight.pointee
                                                red += Float(pointer.load(as: UInt8.self)) * w
                                                green += Float(pointer.load(fromByteOffset: 1, as: UInt8.self)) * w
                                                blue += Float(pointer.load(fromByteOffset: 2, as: UInt8.self)) * w
                                                alpha += Float(pointer.load(fromByteOffset: 3, as: UInt8.self)) * w
                                                pointer += 4
                                                weight += 1
                                            }
                                            output[3] = clampToByte(alpha)
                                        } else {
                                            for _ in 0..<Int(counts[x]) {
                                                let w = weight.pointee
                                                red += Float(pointer.load(as: UInt8.self)) * w
                                                green += Float(pointer.load(fromByteOffset: 1, as: UInt8.self)) * w
                                                blue += Float(pointer.load(fromByteOffset: 2, as: UInt8.self)) * w
                                                pointer += 3
                                                weight += 1
                                            }
                                        }
                                        output[0] = clampToByte(red)
                                        output[1] = clampToByte(green)
                                        output[2] = clampToByte(blue)
                                    }
                                }
                            }
                        }
                    }
                }
            }
            band = bandEnd
        }
        return output
    }

    /// Rounds to nearest and clamps to 0...255 without a trapping float→int conversion: adding 2^23 puts the
    /// rounded integer in the low mantissa bits (vectorisable, unlike `Int32(_:)` with its range check).
    @inline(__always)
    private static func clampToByte(_ value: Float) -> UInt8 {
        UInt8(truncatingIfNeeded: (min(255, max(0, value)) + 8_388_608).bitPattern)
    }
}
