
extension RenderPlan {
    /// An upper bound on the pixel memory one render of `probe` as `variant` holds at its peak, from this plan's
    /// decisions and the headers alone: what `RenderMemoryBudget` reserves before the decode starts.
    ///
    /// HEIC and AVIF decode at full size, with libheif's own planes (at the coded size `HEIFHeader` verified) on top.
    /// Counted: the decoded image twice (an opaque RGBA image is copied to RGB, a later box shrink copies it), the
    /// decoder's working buffers (a band of rows; an interlaced PNG's running sums, or its even rows when it is
    /// resized without a box shrink; a progressive or multi-scan JPEG's coefficients,
    /// `wholeImageCoefficientBytes`), the Lanczos intermediate, and the output three times (resize, orientation,
    /// flattening). Not counted: the source and encoded bytes (the fetcher's cap bounds those).
    /// With a quality target, the search's working memory is added (`QualitySearch.workingBytes`).
    /// GIFs are validated with one frame buffer of the screen size.
    func peakBytes(of probe: ImageProbe, as variant: ImageVariant) -> Int {
        let width = sourceWidth, height = sourceHeight
        let channels = probe.hasAlpha || decode == .heif ? 4 : 3
        var decoded = (width: decodedWidth, height: decodedHeight)
        var working = 0
        switch decode {
        case .passThrough:
            return width * height * 4
        case .jpeg:
            working = wholeImageCoefficientBytes
        case .png(let reduction, let resizesWhileDecoding):
            // Without a box shrink the rows may be resized as they are decoded (`PNGDecoder.decodeResized`); the
            // fast path still holds the whole filtered image then, so the full-size figure stays the bound.
            if reduction > 1 {
                // One band of full-width rows, and for an interlaced file the running sums per output sample (the
                // output is then written over them, so they add only their excess over it).
                working = width * channels * reduction * max(1, WorkBudget.bandRows / reduction)
                if probe.isInterlaced {
                    working += decoded.width * decoded.height * channels * (PNGDecoder.sumBytes(forReduction: reduction) - 1)
                }
            } else if resizesWhileDecoding, probe.isInterlaced, resize.outputWidth != width || resize.outputHeight != height {
                // Resized as the last pass arrives (`PNGDecoder.decodeInterlacedResized`): the even rows kept through
                // the first six passes, the resize's window of full-width rows and its intermediate, also at the
                // source's width (the figure below counts one at the output's).
                decoded = (resize.outputWidth, resize.outputHeight)
                let windowRows = WorkBudget.bandRows + ResamplingKernel.maximumTaps(extent: resize.cropHeight, outputSize: resize.outputHeight)
                working = ((height + 1) / 2 + windowRows + resize.outputHeight) * width * channels
            }
        case .webp:
            break
        case .heif:
            // In the decode worker, and the shared mapping it is copied into (which ours is then copied from).
            working = Self.heifDecodeBytes(codedPixels: heifCodedPixels ?? width * height, width: width, height: height,
                                           channels: channels)
        }
        let decodedBytes = decoded.width * decoded.height * channels
        let outputBytes = resize.outputWidth * resize.outputHeight * channels
        let intermediateBytes = resize.outputHeight * decoded.width * channels
        let search = variant.qualityTarget == nil ? 0 : QualitySearch.workingBytes(width: resize.outputWidth, height: resize.outputHeight)
        return 2 * decodedBytes + working + intermediateBytes + 3 * outputBytes + search
    }
}
