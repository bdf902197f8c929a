import Foundation
import RichPushCore

/// What an image's headers say, read without decoding or allocating pixels.
package struct ImageProbe: Sendable, Hashable {
    package var format: ImageFormat
    /// Stored width and height (before EXIF orientation is applied).
    package var width: Int
    package var height: Int
    package var hasAlpha: Bool
    package var isAnimated: Bool
    /// EXIF orientation 1...8 (1 when absent or invalid).
    package var orientation: Int
    package var hasICCProfile: Bool
    /// Adam7-interlaced (PNG only): its rows come in seven passes, so shrinking while decoding needs running sums.
    package internal(set) var isInterlaced = false
    /// HEIC and AVIF only: the pixels libheif's decoders allocate for the image (every grid tile and the alpha
    /// plane at their coded size, read from the HEVC and AV1 headers and checked against `ispe`).
    package internal(set) var codedPixels: Int?
    /// JPEG only: the frame's sampling factors, one per component (`RenderPlan` sizes libjpeg's coefficient
    /// arrays from them).
    package internal(set) var componentSampling: [ComponentSampling] = []
    /// JPEG only: progressive, or one scan per component, so libjpeg keeps every block's coefficients until the
    /// last scan whatever scale it decodes at.
    package internal(set) var isMultiScan = false
    /// JPEG only: the scans in the file, every one counted before any is decoded.
    package internal(set) var scanCount = 0
    /// The samples the decoders produce, counted from the headers: for JPEG, every scan's components' samples
    /// summed over the scans (a progressive file decodes each block once per scan that covers it); for the other
    /// formats, each pixel's channels once (HEIC and AVIF: every coded tile pixel). `ImageLimits.maximumDecodeWork`
    /// bounds it, so a small file cannot buy a long decode.
    package internal(set) var decodeWork = 0
    /// WebP only: how the still is coded, which decides what libwebp holds while decoding it (`RenderPlan`).
    package internal(set) var webpCoding: WebPCoding?
    /// PNG only: the bits of one pixel as stored (bit depth times samples), and whether the colour type and depth
    /// are ones the libdeflate fast path reads (`PNGInflatedRows.readsLayout`); `RenderPlan` sizes and chooses
    /// the decode path from them.
    package internal(set) var pngBitsPerPixel = 0
    package internal(set) var pngHasFastPathLayout = false

    /// How a WebP still is coded (its VP8, VP8L and ALPH chunks), or that it is an animation.
    package enum WebPCoding: Sendable, Hashable {
        /// VP8: decoded a macroblock row at a time. `alpha` is the ALPH chunk's compression, when it has one:
        /// raw, or losslessly compressed (VP8L, decoded whole).
        case lossy(alpha: AlphaCompression?)
        /// VP8L: decoded into a whole ARGB image first.
        case lossless
        /// An animation (ANIM): every frame is composed onto a full canvas.
        case animated

        package enum AlphaCompression: Sendable, Hashable { case raw, lossless }
    }

    /// One JPEG component's horizontal and vertical sampling factors (1...4 each).
    package struct ComponentSampling: Sendable, Hashable {
        package var horizontal: Int
        package var vertical: Int
    }

    package init(format: ImageFormat, width: Int, height: Int, hasAlpha: Bool, isAnimated: Bool, orientation: Int, hasICCProfile: Bool) {
        self.format = format
        self.width = width
        self.height = height
        self.hasAlpha = hasAlpha
        self.isAnimated = isAnimated
        self.orientation = orientation
        self.hasICCProfile = hasICCProfile
    }

    /// Sniffs the format (`AttachmentSniffer`), then probes as `probe(_:sniffed:limits:)` does: for callers without
    /// the fetcher's verdict (tools, tests, the check of the renderer's own output).
    package static func probe(_ bytes: Data, limits: ImageLimits = ImageLimits()) throws(ImageError) -> ImageProbe {
        try probe(bytes, sniffed: AttachmentSniffer.format(of: bytes), limits: limits)
    }

    /// Probes `bytes` whose format was already sniffed (`FetchedMedia.format`, nil when unrecognised): the source
    /// cap first, then `unsupportedFormat` unless the format is decodable (`ImageFormat(sniffed:of:)`), then the
    /// headers (`probe(_:as:limits:)`).
    package static func probe(_ bytes: Data, sniffed format: AttachmentFormat?, limits: ImageLimits = ImageLimits()) throws(ImageError) -> ImageProbe {
        try checkSourceSize(bytes, limits: limits)
        return try probe(bytes, as: ImageFormat(sniffed: format, of: bytes), limits: limits)
    }

    /// Reads the headers of `bytes` as `format` (already known, e.g. `FetchedMedia.format`; nothing is sniffed
    /// again), then enforces `limits` (source bytes, side, pixels). The header parse starts with the format's own
    /// signature (HEIF's with its box walk): bytes that are not `format` fail as `corrupt`.
    /// Cost: a walk over the header segments only (JPEG markers up to the first SOS, PNG chunks up to IDAT, GIF
    /// blocks, HEIF's `meta` box); no pixel memory is allocated.
    package static func probe(_ bytes: Data, as format: ImageFormat, limits: ImageLimits = ImageLimits()) throws(ImageError) -> ImageProbe {
        try checkSourceSize(bytes, limits: limits)
        let signature = format.attachmentFormat.signature
        if case .fileTypeBrands = signature {
            // HEIF: `HEIFHeader` walks the boxes and finds the still image or fails.
        } else if !signature.matches([UInt8](bytes.prefix(ISOMediaBrands.brandInspectionLength))) {
            throw .corrupt(reason: "\(format.rawValue.uppercased()) signature missing")
        }
        let result: Result<ImageProbe, ImageError> = bytes.withUnsafeBytes { raw in
            Result { () throws(ImageError) -> ImageProbe in
                let reader = ByteReader(bytes: raw)
                switch format {
                case .jpeg: return try JPEGHeader.probe(reader)
                case .png: return try PNGHeader.probe(reader)
                case .webp: return try WebPHeader.probe(reader)
                case .gif: return try GIFHeader.probe(reader)
                case .heic, .avif: return try HEIFHeader.probe(reader, sniffed: format, limits: limits)
                }
            }
        }
        var probe = try result.get()
        try limits.check(width: probe.width, height: probe.height)
        if probe.format != .jpeg {
            probe.decodeWork = (probe.codedPixels ?? probe.width * probe.height) * (probe.hasAlpha ? 4 : 3)
        }
        try limits.check(decodeWork: probe)
        return probe
    }

    /// The source cap comes first: a body over it is refused before anything in it is read.
    private static func checkSourceSize(_ bytes: Data, limits: ImageLimits) throws(ImageError) {
        if bytes.count > limits.maximumSourceBytes {
            throw .sourceTooLarge(bytes: bytes.count, limit: limits.maximumSourceBytes)
        }
    }

    /// Width and height after EXIF orientation: the image as the viewer sees it.
    package var orientedWidth: Int { orientation >= 5 ? height : width }
    package var orientedHeight: Int { orientation >= 5 ? width : height }
}
