
extension ImagePipeline {
    /// An upper bound on the pixel memory one render of `probe` as `variant` holds at its peak, from the headers
    /// alone: what `RenderMemoryBudget` reserves before the decode starts.
    ///
    /// It follows the same choices as `renderSynchronously`: the JPEG DCT scale, the PNG box shrink done while
    /// decoding, libwebp's scaled decode; HEIC and AVIF decode at full size, with libheif's own planes (at the coded size `HEIFHeader` verified) on top.
    /// Counted: the decoded image twice (an opaque RGBA image is copied to RGB, a later box shrink copies it), the
    /// decoder's working buffers (a band of rows; an interlaced PNG's running sums, or its even rows when it is
    /// resized without a box shrink; a progressive or multi-scan
    /// JPEG's coefficients, `ImageProbe.wholeImageDecoderBytes`), the Lanczos intermediate, and the output three
    /// times (resize, orientation, flattening). Not counted: the source and encoded bytes (the fetcher's cap bounds
    /// those).
    /// With a quality target, the search's working memory is added (`QualitySearch.workingBytes`).
    /// GIFs are validated with one frame buffer of the screen size.
    func estimatedPeakBytes(of probe: ImageProbe, as variant: ImageVariant) -> Int {
        let width = probe.width, height = probe.height
        let channels = probe.hasAlpha || probe.format == .heic || probe.format == .avif ? 4 : 3
        if probe.format == .gif { return width * height * 4 }
        let plan = ResizePlan.make(width: width, height: height, swapsAxes: probe.orientation >= 5,
                                   boxWidth: max(1, variant.width), boxHeight: max(1, variant.height), fit: variant.fit)
        var decoded = (width: width, height: height)
        var working = 0
        switch probe.format {
        case .jpeg:
            let target = plan.fullScaledSize(sourceWidth: width, sourceHeight: height)
            let numerator = JPEGDecoder.scaleNumerator(width: width, height: height,
                                                       targetWidth: target.width, targetHeight: target.height)
            decoded = (JPEGDecoder.scaledSize(width, numerator: numerator), JPEGDecoder.scaledSize(height, numerator: numerator))
            // A progressive or multi-scan file's coefficients, at full coded size whatever the scale.
            working = probe.wholeImageDecoderBytes
        case .png:
            let reduction = resizesPNGWhileDecoding ? Resampler.boxReduction(for: plan) : 1
            // Without a box shrink the rows may be resized as they are decoded (`PNGDecoder.decodeResized`); the
            // fast path still holds the whole filtered image then, so the full-size figure stays the bound.
            if reduction > 1 {
                decoded = ((width + reduction - 1) / reduction, (height + reduction - 1) / reduction)
                // One band of full-width rows, and for an interlaced file the running sums per output sample (the
                // output is then written over them, so they add only their excess over it).
                working = width * channels * reduction * max(1, WorkBudget.bandRows / reduction)
                if probe.isInterlaced {
                    working += decoded.width * decoded.height * channels * (PNGDecoder.sumBytes(forReduction: reduction) - 1)
                }
            } else if resizesPNGWhileDecoding, probe.isInterlaced, plan.outputWidth != width || plan.outputHeight != height {
                // Resized as the last pass arrives (`PNGDecoder.decodeInterlacedResized`): the even rows kept through
                // the first six passes, the resize's window of full-width rows and its intermediate, also at the
                // source's width (the figure below counts one at the output's).
                decoded = (plan.outputWidth, plan.outputHeight)
                let windowRows = WorkBudget.bandRows + ResamplingKernel.maximumTaps(extent: plan.cropHeight, outputSize: plan.outputHeight)
                working = ((height + 1) / 2 + windowRows + plan.outputHeight) * width * channels
            }
        case .webp:
            let target = plan.fullScaledSize(sourceWidth: width, sourceHeight: height)
            if !probe.isAnimated && target.width < width { decoded = target }
        case .heic, .avif:
            // In the decode worker: the decoders' YUV planes at the coded size the probe verified (every tile, up
            // to 2 bytes a pixel for 10-bit 4:2:0), libheif's interleaved image, and the shared mapping it is
            // copied into (which ours is then copied from).
            working = (probe.codedPixels ?? width * height) * 3 + width * height * channels * 2
        case .gif:
            break
        }
        let decodedBytes = decoded.width * decoded.height * channels
        let outputBytes = plan.outputWidth * plan.outputHeight * channels
        let intermediateBytes = plan.outputHeight * decoded.width * channels
        let search = variant.qualityTarget == nil ? 0 : QualitySearch.workingBytes(width: plan.outputWidth, height: plan.outputHeight)
        return 2 * decodedBytes + working + intermediateBytes + 3 * outputBytes + search
    }
}
