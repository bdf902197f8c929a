import Foundation
import RichPushCore

/// Turns source bytes into one published rendition. Stateless and `Sendable`: share one across tasks.
package struct ImagePipeline: Sendable {
    /// Bump when output bytes change for the same input and variant (part of cache keys).
    package static let rendererVersion = "imaging-2"

    package var limits: ImageLimits
    /// PNGs are box-shrunk (`PNGDecoder.decodeShrunk`) or, without a box pre-shrink, resized
    /// (`PNGDecoder.decodeResized`) band by band while decoding; off only to compare against the full-size path
    /// in tests.
    var resizesPNGWhileDecoding = true
    /// Where `render` reserves its decoded pixel memory before it starts (`RenderPlan.estimatedPeakBytes`).
    package var memoryBudget: RenderMemoryBudget
    /// Where an expensive render (`RenderPlan.isExpensive`) waits for its turn before it reserves memory.
    package var expensiveLane: ExpensiveRenderLane

    package init(limits: ImageLimits = ImageLimits(), memoryBudget: RenderMemoryBudget = .processWide,
                expensiveLane: ExpensiveRenderLane = .processWide) {
        self.limits = limits
        self.memoryBudget = memoryBudget
        self.expensiveLane = expensiveLane
    }

    /// Sniff, probe+limits, decode (shrink-on-load), orient, resize, encode, then re-decode the output header to
    /// check width/height/format before returning. GIF within limits passes through unchanged once giflib has
    /// validated it (`GIFValidator`: frames within the screen, frame and pixel caps, a first frame that decodes).
    ///
    /// Cost: one decode at a reduced scale where the format allows it (JPEG DCT scaling, with the resize run on
    /// the rows as they decode; WebP scaled decode; HEIC and AVIF decode at full size), one Lanczos3 resize and one to a few encodes (each step down in quality for
    /// the byte budget is a new encode). The work runs on a render thread (one per core), not on the calling task's
    /// thread; cancellation returns at once, and `deadline` is checked between bands of rows (every few
    /// milliseconds; a HEIC or AVIF decode is one libheif call, checked before and after).
    ///
    /// Every choice above is made once, from the headers, in a `RenderPlan` (`RenderedImage.plan`). The probe has
    /// already refused a source whose decode work is over `limits.maximumDecodeWork`. An expensive plan
    /// (`RenderPlan.isExpensive`) first waits for `expensiveLane`; then, before the decode, the render reserves the
    /// plan's estimated peak pixel memory in `memoryBudget`, waiting while other renders hold it. Either wait ends
    /// at `deadline`: `deadlineExceeded` if the turn or the budget does not come in time.
    package func render(_ bytes: Data, as variant: ImageVariant, deadline: ContinuousClock.Instant) async throws(ImageError) -> RenderedImage {
        try await render(bytes, sniffed: AttachmentSniffer.format(of: bytes), as: variant, deadline: deadline)
    }

    /// The same render of `bytes` whose format was already sniffed (`FetchedMedia.format`, nil when unrecognised):
    /// nothing is sniffed again (`ImageProbe.probe(_:sniffed:limits:)`).
    package func render(_ bytes: Data, sniffed format: AttachmentFormat?, as variant: ImageVariant,
                       deadline: ContinuousClock.Instant) async throws(ImageError) -> RenderedImage {
        // The probe is a header walk; a source it refuses fails here exactly as the render would.
        let probe = try ImageProbe.probe(bytes, sniffed: format, limits: limits)
        let plan = renderPlan(for: probe, as: variant)
        let isExpensive = plan.isExpensive(memoryCapacity: memoryBudget.capacity)
        return try await expensiveLane.admit(if: isExpensive, deadline: deadline) { () throws(ImageError) -> RenderedImage in
            try await memoryBudget.withReservation(of: plan.estimatedPeakBytes, deadline: deadline) {
                () throws(ImageError) -> RenderedImage in
                try await BlockingExecutor.shared.run(cancelledError: .cancelled) { cancellation throws(ImageError) in
                    try renderSynchronously(bytes, as: variant, probe: probe, plan: plan,
                                            budget: WorkBudget(deadline: deadline, cancellation: cancellation))
                }
            }
        }
    }

    /// The same render, blocking the calling thread: for callers that own their threads (command-line tools,
    /// fuzzers). Never call it from Swift's cooperative pool.
    package func renderBlocking(_ bytes: Data, as variant: ImageVariant, deadline: ContinuousClock.Instant) throws(ImageError) -> RenderedImage {
        try renderSynchronously(bytes, as: variant, budget: WorkBudget(deadline: deadline))
    }

    /// The decisions of a render of `probe` as `variant` with this pipeline's settings (see `RenderPlan`).
    package func renderPlan(for probe: ImageProbe, as variant: ImageVariant) -> RenderPlan {
        RenderPlan(for: probe, as: variant, resizesPNGWhileDecoding: resizesPNGWhileDecoding)
    }

    /// Probes and plans, then renders as planned.
    func renderSynchronously(_ bytes: Data, as variant: ImageVariant, budget: WorkBudget) throws(ImageError) -> RenderedImage {
        try budget.check()
        let probe = try ImageProbe.probe(bytes, limits: limits)
        return try renderSynchronously(bytes, as: variant, probe: probe, plan: renderPlan(for: probe, as: variant), budget: budget)
    }

    /// Renders `bytes` as `plan` says: `probe` and `plan` are the ones `render` already made for its memory
    /// reservation, so the headers are walked once and the decoders do what was reserved for.
    func renderSynchronously(_ bytes: Data, as variant: ImageVariant, probe: ImageProbe, plan: RenderPlan,
                             budget: WorkBudget) throws(ImageError) -> RenderedImage {
        try budget.check()
        guard variant.width > 0, variant.height > 0 else { throw .unsupportedVariant("variant \(variant.name) has an empty box") }
        var decoded: DecodedImage
        switch plan.decode {
        case .passThrough:
            // Passed through, not re-encoded: the variant's byte budget is for renders; a GIF's cap is the source
            // cap (`limits.maximumSourceBytes`, Apple's 10 MB for images), checked by the probe.
            let frames = try GIFValidator.validate(bytes, limits: limits, budget: budget)
            return RenderedImage(bytes: bytes, format: .gif, width: probe.width, height: probe.height, source: probe,
                                 quality: nil, warnings: ["GIF (\(frames) frames) passed through unchanged"], plan: plan,
                                 decodedWidth: probe.width, decodedHeight: probe.height)
        case .jpeg(let numerator):
            // Resized as the rows arrive where the plan says so: the scaled image never exists whole.
            decoded = try JPEGDecoder.decode(bytes, scaleNumerator: numerator, resizingRowsWith: plan.rowResize, budget: budget)
        case .png(let reduction, let inflatesWholeImage):
            // The resize's box pre-shrink, or without one the resize itself, applied band by band while decoding:
            // the full-size image never exists.
            decoded = try PNGDecoder.decode(bytes, limits: limits, shrinkingBy: reduction, resizingRowsWith: plan.rowResize,
                                            allowsFastPath: inflatesWholeImage, budget: budget)
        case .webp(let scaledWidth, let scaledHeight):
            let scaledSize = scaledWidth.flatMap { width in scaledHeight.map { (width: width, height: $0) } }
            decoded = try WebPDecoder.decode(bytes, layout: probe.hasAlpha ? .rgba : .rgb, scaledTo: scaledSize, budget: budget)
        case .heif:
            decoded = try HEIFDecoder.decode(bytes, format: probe.format, limits: limits, budget: budget)
        case .gifFirstFrame:
            decoded = try GIFDecoder.firstFrame(bytes, limits: limits, budget: budget)
        }
        let resize = plan.resize(forDecodedWidth: decoded.pixels.width, height: decoded.pixels.height)

        var pixels = decoded.pixels
        // Opaque RGBA is RGB; with all alpha 255, premultiplied values are the straight ones.
        if pixels.channels == 4, !(decoded.hasTranslucentPixels ?? pixels.hasTranslucentPixels) { pixels = pixels.droppingAlpha() }
        let hasAlpha = pixels.channels == 4
        let needsResize = pixels.width != resize.outputWidth || pixels.height != resize.outputHeight
        if needsResize {
            if hasAlpha && !decoded.isPremultiplied { pixels.premultiply() }
            pixels = try Resampler.resize(pixels, plan: resize, budget: budget)
            if hasAlpha { pixels.unpremultiply() }
        } else if hasAlpha && decoded.isPremultiplied {
            pixels.unpremultiply()
        }
        try budget.check()
        pixels = Orientation.apply(probe.orientation, to: pixels)

        var warnings = decoded.warnings
        let encoded = try ImageEncoding.encode(pixels, variant: variant, iccProfile: decoded.iccProfile, budget: budget,
                                               warnings: &warnings)
        try Self.checkOutput(encoded.bytes, format: encoded.format, width: pixels.width, height: pixels.height)
        let decodedSize = decoded.decodedSize ?? (decoded.pixels.width, decoded.pixels.height)
        return RenderedImage(bytes: encoded.bytes, format: encoded.format, width: pixels.width, height: pixels.height,
                             source: probe, quality: encoded.quality, score: encoded.score, warnings: warnings, plan: plan,
                             decodedWidth: decodedSize.width, decodedHeight: decodedSize.height)
    }

    /// Re-reads the encoded output's headers: a renderer bug becomes an error, never a broken image on a phone.
    static func checkOutput(_ bytes: Data, format: ImageFormat, width: Int, height: Int) throws(ImageError) {
        let probe: ImageProbe
        do throws(ImageError) {
            probe = try ImageProbe.probe(bytes, limits: ImageLimits(maximumPixels: Int.max, maximumSide: Int.max, maximumSourceBytes: Int.max, maximumDecodeWork: Int.max))
        } catch {
            throw .outputCheckFailed(reason: "output does not parse: \(error.description)")
        }
        guard probe.format == format else {
            throw .outputCheckFailed(reason: "output is \(probe.format.rawValue), expected \(format.rawValue)")
        }
        guard probe.width == width, probe.height == height else {
            throw .outputCheckFailed(reason: "output is \(probe.width)x\(probe.height), expected \(width)x\(height)")
        }
        guard probe.orientation == 1 else { throw .outputCheckFailed(reason: "output carries EXIF orientation \(probe.orientation)") }
    }
}
