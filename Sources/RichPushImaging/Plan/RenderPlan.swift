
/// Every decision of one render, made once from the probe (the facts of the file), the variant and the pipeline's
/// settings, before anything is decoded: the output size, how the decoder shrinks while decoding, whether it
/// resizes its rows as they arrive, and the peak pixel memory that follows. The decoders and the memory estimate
/// read these decisions; none of them makes one again.
///
/// As in libvips' thumbnail, the shrink is decided once and feeds one pipeline: `ImagePipeline.render` reserves
/// `estimatedPeakBytes` in its `RenderMemoryBudget`, and `renderSynchronously` decodes as `decode` says, so the
/// reservation and the decode cannot follow different choices. Cost: arithmetic on the header fields only.
package struct RenderPlan: Sendable, Equatable {
    /// How the decoder is asked to produce its rows.
    package enum Decode: Sendable, Equatable {
        /// A GIF: validated by giflib and passed through, never decoded to pixels here.
        case passThrough
        /// A GIF's first frame on its screen, for a variant that shows a still (`ImageVariant.keepsAnimation`).
        case gifFirstFrame
        /// libjpeg's DCT scaling at `scaleNumerator`/8 (`JPEGDecoder.scaleNumerators`).
        case jpeg(scaleNumerator: Int)
        /// A box shrink by `shrinkFactor` band by band while decoding (1: none), and whether the libdeflate fast
        /// path (`PNGInflatedRows`, which inflates the whole filtered image at once) may be taken; if not, libpng
        /// streams the rows. A file whose chunks the fast path does not accept streams either way.
        case png(shrinkFactor: Int, inflatesWholeImage: Bool)
        /// libwebp's own scaler to `scaledWidth`x`scaledHeight`, or nil for a full-size decode (an animation, or
        /// no downscale wanted).
        case webp(scaledWidth: Int?, scaledHeight: Int?)
        /// libheif at full size, in its worker process.
        case heif
    }

    /// How the decoder is asked to produce its rows.
    package let decode: Decode
    /// The size the decoder produces its rows at, before any resize (stored axes): libjpeg's size at the DCT
    /// scale, the box-shrunk PNG's, libwebp's scaled size, or the stored size.
    package let decodedWidth: Int
    package let decodedHeight: Int
    /// Bytes of libjpeg's coefficient arrays held for the whole image (a progressive or multi-scan JPEG), at full
    /// coded size whatever the DCT scale; 0 when the file has one scan or is not a JPEG.
    package let wholeImageCoefficientBytes: Int
    /// HEIC and AVIF: the coded pixels libheif's decoders allocate (`ImageProbe.codedPixels`); nil otherwise.
    package let heifCodedPixels: Int?
    /// The samples the decode produces (`ImageProbe.decodeWork`), behind `estimatedCost`.
    package let decodeWork: Int
    /// The resize the decoder runs on its rows as they arrive (a JPEG at its DCT scale, a PNG without a box shrink;
    /// an interlaced PNG as its last pass arrives), in the decoded rows' pixels; nil when the decoded rows are kept
    /// whole (see ``rowResize(_:sourceWidth:sourceHeight:decodedWidth:decodedHeight:)``).
    let rowResize: ResizePlan?
    /// Whether the decoder resizes its rows as they arrive, so that the decoded image never exists whole.
    package var resizesRowsWhileDecoding: Bool { rowResize != nil }
    /// The pixel memory the render holds at its peak: what `ImagePipeline.render` reserves (see
    /// `RenderPlan+MemoryEstimate.swift` for what is counted).
    package private(set) var estimatedPeakBytes = 0
    /// The resize in the stored source's pixels, before any shrink while decoding.
    let resize: ResizePlan
    /// The stored size the plan was made for, and the variant's box.
    let sourceWidth: Int, sourceHeight: Int
    let boxWidth: Int, boxHeight: Int, fit: ImageVariant.Fit

    /// The output size before orientation (stored axes).
    package var outputWidth: Int { resize.outputWidth }
    package var outputHeight: Int { resize.outputHeight }

    /// Plans a render of `probe` as `variant`. `resizesPNGWhileDecoding` is `ImagePipeline`'s switch (off only to
    /// compare with the full-size path in tests).
    init(for probe: ImageProbe, as variant: ImageVariant, resizesPNGWhileDecoding: Bool = true) {
        let width = probe.width, height = probe.height
        sourceWidth = width
        sourceHeight = height
        (boxWidth, boxHeight, fit) = (max(1, variant.width), max(1, variant.height), variant.fit)
        resize = ResizePlan.make(width: width, height: height, swapsAxes: probe.orientation >= 5,
                                 boxWidth: boxWidth, boxHeight: boxHeight, fit: fit)
        var decoded = (width: width, height: height)
        var resizesRows = false
        switch probe.format {
        case .gif:
            decode = variant.keepsAnimation ? .passThrough : .gifFirstFrame
        case .jpeg:
            let target = resize.fullScaledSize(sourceWidth: width, sourceHeight: height)
            let numerator = JPEGDecoder.scaleNumerator(width: width, height: height,
                                                       targetWidth: target.width, targetHeight: target.height)
            decode = .jpeg(scaleNumerator: numerator)
            decoded = (JPEGDecoder.scaledSize(width, numerator: numerator), JPEGDecoder.scaledSize(height, numerator: numerator))
            resizesRows = true
        case .png:
            let reduction = resizesPNGWhileDecoding ? Resampler.boxReduction(for: resize) : 1
            decode = .png(shrinkFactor: reduction, inflatesWholeImage: Self.inflatesWholePNG(probe))
            decoded = ((width + reduction - 1) / reduction, (height + reduction - 1) / reduction)
            resizesRows = resizesPNGWhileDecoding && reduction == 1
        case .webp:
            // libwebp's own scaler is cheaper than decoding at full size when only a plain downscale is needed.
            let target = resize.fullScaledSize(sourceWidth: width, sourceHeight: height)
            if !probe.isAnimated && target.width < width {
                decode = .webp(scaledWidth: target.width, scaledHeight: target.height)
                decoded = target
            } else {
                decode = .webp(scaledWidth: nil, scaledHeight: nil)
            }
        case .heic, .avif:
            decode = .heif
        }
        (decodedWidth, decodedHeight) = decoded
        rowResize = resizesRows
            ? Self.rowResize(resize, sourceWidth: width, sourceHeight: height, decodedWidth: decoded.width, decodedHeight: decoded.height)
            : nil
        wholeImageCoefficientBytes = probe.format == .jpeg && probe.isMultiScan
            ? JPEGHeader.coefficientBytes(width: width, height: height, sampling: probe.componentSampling) : 0
        heifCodedPixels = probe.format == .heic || probe.format == .avif ? probe.codedPixels ?? width * height : nil
        decodeWork = probe.decodeWork
        estimatedPeakBytes = peakBytes(of: probe, as: variant)
    }

    /// `resize` (in the stored source's pixels) as it runs on rows decoded at `decodedWidth`x`decodedHeight`, when
    /// it can run as they arrive: nil when the decoded rows are already the output size, or when the resize starts
    /// with a box pre-shrink (a reduction of over 4x), which needs the whole image. The one place this is decided.
    static func rowResize(
        _ resize: ResizePlan, sourceWidth: Int, sourceHeight: Int, decodedWidth: Int, decodedHeight: Int
    ) -> ResizePlan? {
        guard decodedWidth != resize.outputWidth || decodedHeight != resize.outputHeight else { return nil }
        let scaled = resize.scaled(toSourceWidth: decodedWidth, height: decodedHeight, fromWidth: sourceWidth, height: sourceHeight)
        return Resampler.boxReduction(for: scaled) == 1 ? scaled : nil
    }

    /// Whether a PNG render takes the libdeflate fast path: when the file's colour type and depth are ones it
    /// reads and its filtered image is within `PNGInflatedRows.maximumFilteredBytes`, also when the decode
    /// shrinks. Streaming such a PNG into a thumbnail through libpng instead holds less memory but takes about twice
    /// as long (docs/benchmarks.md, "PNG: libdeflate, Huffman-only coding and a fast decode path"); the reservation
    /// counts the filtered image, and its cap bounds it.
    static func inflatesWholePNG(_ probe: ImageProbe) -> Bool {
        probe.pngHasFastPathLayout && !probe.isInterlaced
            && PNGInflatedRows.filteredBytes(width: probe.width, height: probe.height, bitsPerPixel: probe.pngBitsPerPixel)
                <= PNGInflatedRows.maximumFilteredBytes
    }

    /// The resize for the pixels the decoder really returned, `width`x`height`: the planned one when they are the
    /// stored size, else the same geometry scaled to them (a shrink while decoding, or rows already resized). A
    /// HEIF decode is planned afresh from libheif's size, which is authoritative (it applies clap, irot, imir).
    func resize(forDecodedWidth width: Int, height: Int) -> ResizePlan {
        guard width != sourceWidth || height != sourceHeight else { return resize }
        if decode == .heif {
            return ResizePlan.make(width: width, height: height, swapsAxes: false, boxWidth: boxWidth, boxHeight: boxHeight, fit: fit)
        }
        return resize.scaled(toSourceWidth: width, height: height, fromWidth: sourceWidth, height: sourceHeight)
    }

    /// The bytes a HEIF decode worker holds for a `width`x`height` image with `channels` channels and
    /// `codedPixels` coded pixels: the decoders' YUV planes at the coded size (every tile, up to 2 bytes a pixel
    /// for 10-bit 4:2:0, so 3 counted), libheif's interleaved image, and the shared mapping it is copied into.
    /// The one formula behind the plan's estimate and the worker's address-space limit (`HEIFDecoder`).
    static func heifDecodeBytes(codedPixels: Int, width: Int, height: Int, channels: Int) -> Int {
        codedPixels * 3 + width * height * channels * 2
    }
}
