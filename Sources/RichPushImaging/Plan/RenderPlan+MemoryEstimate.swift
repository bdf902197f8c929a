
extension RenderPlan {
    /// An upper bound on the pixel memory one render of `probe` as `variant` holds at its peak, from this plan's
    /// decisions and the headers alone: what `RenderMemoryBudget` reserves before the decode starts.
    ///
    /// HEIC and AVIF decode at full size, with libheif's own planes (at the coded size `HEIFHeader` verified) on top.
    /// Counted: the decoded image twice (an opaque RGBA image is copied to RGB, a later box shrink copies it), the
    /// decoder's working buffers (a band of rows; an interlaced PNG's running sums, or its even rows when it is
    /// resized without a box shrink; a progressive or multi-scan JPEG's coefficients,
    /// `wholeImageCoefficientBytes`), the Lanczos intermediate, and the output three times (resize, orientation,
    /// flattening); a PNG taking the fast path adds its whole filtered image, a WebP what libwebp holds
    /// (`webpDecoderBytes`). Not counted: the source and encoded bytes (the fetcher's cap bounds those).
    /// With a quality target, the search's working memory is added (`QualitySearch.workingBytes`), or for an output
    /// with alpha the palette PNG's (`PalettePNG.workingBytes`) when larger.
    /// GIFs are validated with one frame buffer of the screen size; a still's first frame is decoded as RGBA. Every render adds `libraryStateBytes`.
    func peakBytes(of probe: ImageProbe, as variant: ImageVariant) -> Int {
        Self.libraryStateBytes + pixelBytes(of: probe, as: variant)
    }

    /// What the libraries hold whatever the image's size: libpng's and zlib's state and 32 KB window, libjpeg's
    /// tables, giflib's, libwebp's decoder and a lossless file's Huffman tables (for one group of codes; a file
    /// with hundreds of groups holds more), with room above the largest measured across the corpus
    /// (docs/benchmarks.md, "Memory of large images").
    static let libraryStateBytes = 128 << 10

    private func pixelBytes(of probe: ImageProbe, as variant: ImageVariant) -> Int {
        let width = sourceWidth, height = sourceHeight
        let channels = probe.hasAlpha || decode == .heif || decode == .gifFirstFrame ? 4 : 3
        var decoded = (width: decodedWidth, height: decodedHeight)
        var working = 0
        switch decode {
        case .passThrough:
            return width * height * 4
        case .gifFirstFrame:
            working = width   // one row of palette indices; the screen is the decoded image
        case .jpeg:
            working = wholeImageCoefficientBytes
        case .png(let reduction, let inflatesWholeImage):
            // Without a box shrink the rows may be resized as they are decoded (`PNGDecoder.decodeResized`); the
            // full-size figure below stays the bound then.
            if inflatesWholeImage {
                working = PNGInflatedRows.filteredBytes(width: width, height: height, bitsPerPixel: probe.pngBitsPerPixel)
            }
            if reduction > 1 {
                // One band of full-width rows, and for an interlaced file the running sums per output sample (the
                // output is then written over them, so they add only their excess over it).
                working += width * channels * reduction * max(1, WorkBudget.bandRows / reduction)
                if probe.isInterlaced {
                    working += decoded.width * decoded.height * channels * (PNGDecoder.sumBytes(forReduction: reduction) - 1)
                }
            } else if rowResize != nil, probe.isInterlaced {
                // Resized as the last pass arrives (`PNGDecoder.decodeInterlacedResized`): the even rows kept through
                // the first six passes, the resize's window of full-width rows and its intermediate, also at the
                // source's width (the figure below counts one at the output's).
                decoded = (resize.outputWidth, resize.outputHeight)
                let windowRows = WorkBudget.bandRows + ResamplingKernel.maximumTaps(extent: resize.cropHeight, outputSize: resize.outputHeight)
                working += ((height + 1) / 2 + windowRows + resize.outputHeight) * width * channels
            }
        case .webp:
            working = Self.webpDecoderBytes(probe.webpCoding ?? .lossless, width: width, height: height,
                                            decodedWidth: decoded.width)
        case .heif:
            // In the decode worker, and the shared mapping it is copied into (which ours is then copied from).
            working = Self.heifDecodeBytes(codedPixels: heifCodedPixels ?? width * height, width: width, height: height,
                                           channels: channels)
        }
        let decodedBytes = decoded.width * decoded.height * channels
        let outputBytes = resize.outputWidth * resize.outputHeight * channels
        let intermediateBytes = resize.outputHeight * decoded.width * channels
        // An RGBA output tries the palette PNG first, then (over the byte budget) the JPEG search: one after the other.
        let search = variant.qualityTarget == nil ? 0 : max(
            QualitySearch.workingBytes(width: resize.outputWidth, height: resize.outputHeight),
            channels == 4 && variant.format != .jpeg ? PalettePNG.workingBytes(width: resize.outputWidth, height: resize.outputHeight) : 0)
        // libwebp's encoder converts the output to its own YUV and alpha planes and keeps its tokens beside them.
        let webpEncoder = [.webp, .webpWhenSmaller].contains(variant.format) ? WebPEncoder.workingBytes(width: resize.outputWidth, height: resize.outputHeight) : 0
        return 2 * decodedBytes + working + intermediateBytes + 3 * outputBytes + search + webpEncoder
    }

    /// What libwebp holds while decoding a `width`x`height` still coded as `coding` into rows `decodedWidth` wide
    /// (src/dec in libwebp 1.2): a lossless image is decoded whole into ARGB before any row is output; a lossy one
    /// keeps state per macroblock column and its whole alpha plane; an animation composes onto two canvases.
    static func webpDecoderBytes(_ coding: ImageProbe.WebPCoding, width: Int, height: Int, decodedWidth: Int) -> Int {
        // The scaler's work rows (io_dec.c: two 32-bit accumulators and one output byte per sample, 4 samples)
        // or, unscaled, the upsampler's Y, U and V rows.
        let rows = 36 * decodedWidth + 2 * width
        switch coding {
        case .lossless:
            return rows + losslessDecoderBytes(width: width, height: height)
        case .lossy(let alpha):
            // frame_dec.c AllocateMemory, one cache and no threads, per 16-pixel column: intra modes 4, top samples
            // 32, contexts 2, filter info 4, coefficients 800, and the cache of 16 rows plus 8 for the loop
            // filter, luma and chroma (32 x 36); plus the 832-byte block buffer.
            let frame = (width + 15) / 16 * 1_994 + 832
            let alphaPlane: Int = switch alpha {
            case nil: 0
            case .raw: width * height
            case .lossless: width * height + losslessDecoderBytes(width: width, height: height)
            }
            return rows + frame + alphaPlane
        case .animated:
            // anim_decode.c's current and previous canvases, and a frame decoded whole (at most the canvas).
            return rows + 2 * width * height * 4 + losslessDecoderBytes(width: width, height: height)
        }
    }

    /// vp8l_dec.c: the whole ARGB image with one top row and 16 cache rows (AllocateInternalBuffers32b), and the
    /// predictor, cross-colour and entropy images at their finest (one 32-bit entry per 4x4 block each).
    static func losslessDecoderBytes(width: Int, height: Int) -> Int {
        (width * height + 17 * width) * 4 + 3 * ((width + 3) / 4) * ((height + 3) / 4) * 4
    }
}
