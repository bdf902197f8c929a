/// The two Lanczos3 passes of one resize, shared by `Resampler.lanczos` (a whole image in memory) and
/// `StreamingResampler` (rows as a decoder produces them), so both give the same bytes.
///
/// The vertical pass runs first and only on the source columns the horizontal pass reads; its output (the
/// intermediate, `outputHeight` rows of `spanBytes`) is the only full-height buffer.
struct LanczosKernels {
    let horizontal: ResamplingKernel
    let vertical: ResamplingKernel
    let channels: Int
    let outputWidth: Int
    let outputHeight: Int
    /// The first source column the horizontal pass reads, and the bytes it reads per row from there.
    let firstColumn: Int
    let spanBytes: Int

    init(sourceWidth: Int, sourceHeight: Int, channels: Int, plan: ResizePlan) {
        horizontal = ResamplingKernel(sourceSize: sourceWidth, offset: plan.cropX, extent: plan.cropWidth, outputSize: plan.outputWidth)
        vertical = ResamplingKernel(sourceSize: sourceHeight, offset: plan.cropY, extent: plan.cropHeight, outputSize: plan.outputHeight)
        self.channels = channels
        outputWidth = plan.outputWidth
        outputHeight = plan.outputHeight
        firstColumn = horizontal.firstSourceIndex
        spanBytes = max(0, horizontal.endSourceIndex - firstColumn) * channels
    }

    /// The vertical pass's output.
    func makeIntermediate() -> [UInt8] { [UInt8](repeating: 0, count: outputHeight * spanBytes) }

    /// Output row `y` of the vertical pass: `firstRow` is source row `vertical.starts[y]` (column 0), and the
    /// rows below it are `rowBytes` apart. `accumulator` holds at least `spanBytes` floats.
    func verticalRow(_ y: Int, firstRow: UnsafePointer<UInt8>, rowBytes: Int, accumulator: inout [Float],
                     into intermediate: inout [UInt8]) {
        intermediate.withUnsafeMutableBufferPointer { intermediate in
            accumulator.withUnsafeMutableBufferPointer { accumulator in
                vertical.weights.withUnsafeBufferPointer { weights in
                    let sums = accumulator.baseAddress!
                    let taps = Int(vertical.counts[y])
                    let tapWeights = weights.baseAddress! + y * vertical.maximumTaps
                    let spanStart = firstRow + firstColumn * channels
                    // Row-at-a-time multiply-add: a straight loop the compiler vectorises.
                    for index in 0..<spanBytes { sums[index] = 0 }
                    // Two taps per sweep halves the accumulator loads and stores.
                    var tap = 0
                    while tap + 1 < taps {
                        let weight0 = tapWeights[tap], weight1 = tapWeights[tap + 1]
                        let row0 = spanStart + tap * rowBytes
                        let row1 = row0 + rowBytes
                        for index in 0..<spanBytes { sums[index] += Float(row0[index]) * weight0 + Float(row1[index]) * weight1 }
                        tap += 2
                    }
                    if tap < taps {
                        let weight = tapWeights[tap]
                        let row = spanStart + tap * rowBytes
                        for index in 0..<spanBytes { sums[index] += Float(row[index]) * weight }
                    }
                    let target = intermediate.baseAddress! + y * spanBytes
                    for index in 0..<spanBytes {
                        target[index] = Resampler.clampToByte(sums[index])
                    }
                }
            }
        }
    }

    /// The horizontal pass over the whole intermediate, in bands of 32 rows with a budget check between them.
    func horizontalPass(_ intermediate: [UInt8], budget: WorkBudget) throws(ImageError) -> PixelBuffer {
        var output = PixelBuffer(width: outputWidth, height: outputHeight, channels: channels)
        let outputRowBytes = outputWidth * channels
        let channels = channels, spanBytes = spanBytes, firstColumn = firstColumn, horizontal = horizontal
        // Each intermediate row is widened to Float once: every byte is read by about 2 × 3 × scale output pixels.
        // One float of padding: an RGB pixel's taps read a fourth value, the next pixel's red, which is discarded.
        var rowValues = [Float](repeating: 0, count: spanBytes + 1)
        var band = 0
        while band < outputHeight {
            try budget.check()
            let bandEnd = min(outputHeight, band + 32)
            intermediate.withUnsafeBufferPointer { intermediate in
                output.pixels.withUnsafeMutableBufferPointer { destination in
                    rowValues.withUnsafeMutableBufferPointer { rowValues in
                        horizontal.starts.withUnsafeBufferPointer { starts in
                            horizontal.counts.withUnsafeBufferPointer { counts in
                                horizontal.weights.withUnsafeBufferPointer { weights in
                                    let values = rowValues.baseAddress!
                                    for y in band..<bandEnd {
                                        let sourceRow = intermediate.baseAddress! + y * spanBytes
                                        for index in 0..<spanBytes { values[index] = Float(sourceRow[index]) }
                                        let destinationRow = destination.baseAddress! + y * outputRowBytes
                                        for x in 0..<outputWidth {
                                            var pointer = UnsafePointer(values) + (Int(starts[x]) - firstColumn) * channels
                                            var weight = weights.baseAddress! + x * horizontal.maximumTaps
                                            var red: Float = 0, green: Float = 0, blue: Float = 0, alpha: Float = 0
                                            let output = destinationRow + x * channels
                                            if channels == 4 {
                                                for _ in 0..<Int(counts[x]) {
                                                    let w = weight.pointee
                                                    red += pointer[0] * w
                                                    green += pointer[1] * w
                                                    blue += pointer[2] * w
                                                    alpha += pointer[3] * w
                                                    pointer += 4
                                                    weight += 1
                                                }
                                                output[3] = Resampler.clampToByte(alpha)
                                            } else {
                                                // Four like sums, one of them unused, so the compiler can run
                                                // them as one vector operation; each sum is still added in tap
                                                // order, so the bytes are those of three separate sums. The loop
                                                // is written twice so each has a constant stride: one loop
                                                // stepping by `channels`, or a shared inlined helper, measured
                                                // slower on the corpus (docs/benchmarks.md, "JPEG: DCT
                                                // scale, IDCT and band-wise resize").
                                                for _ in 0..<Int(counts[x]) {
                                                    let w = weight.pointee
                                                    red += pointer[0] * w
                                                    green += pointer[1] * w
                                                    blue += pointer[2] * w
                                                    alpha += pointer[3] * w
                                                    pointer += 3
                                                    weight += 1
                                                }
                                            }
                                            output[0] = Resampler.clampToByte(red)
                                            output[1] = Resampler.clampToByte(green)
                                            output[2] = Resampler.clampToByte(blue)
                                        }
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
}
