import RichPushCore

/// Limits enforced from headers alone, before any pixel memory is allocated.
public struct ImageLimits: Sendable, Hashable, Codable {
    /// Largest width × height accepted (default 40 MP).
    public var maximumPixels: Int
    /// Largest width or height accepted (default 16384).
    public var maximumSide: Int
    /// Largest encoded input accepted (default 10 MB, Apple's attachment limit).
    public var maximumSourceBytes: Int
    /// Most samples one decode may produce, counted from the headers (`ImageProbe.decodeWork`): a JPEG's scans
    /// times their components' samples. The default, `defaultMaximumDecodeWork`, is about 3.5 times what a 40 MP
    /// 4:4:4 progressive photograph costs; docs/benchmarks.md ("Decode work") has the corpus measured against it.
    public var maximumDecodeWork: Int

    /// 2,000 M samples: a 40 MP 4:4:4 file with libjpeg's 10-scan progression decodes 560 M, a baseline one 120 M.
    public static let defaultMaximumDecodeWork = 2_000_000_000
    /// Most scans a JPEG may have, against scan-flood files; more is refused from the headers.
    package static let maximumJPEGScans = 500
    /// Most frames a GIF may have.
    package static let maximumGIFFrames = 1_000

    public init(maximumPixels: Int = 40_000_000, maximumSide: Int = 16_384,
                maximumSourceBytes: Int = AttachmentKind.image.appleByteLimit, maximumDecodeWork: Int = defaultMaximumDecodeWork) {
        self.maximumPixels = maximumPixels
        self.maximumSide = maximumSide
        self.maximumSourceBytes = maximumSourceBytes
        self.maximumDecodeWork = maximumDecodeWork
    }

    /// Throws when decoding `probe` would produce more samples than `maximumDecodeWork`.
    func check(decodeWork probe: ImageProbe) throws(ImageError) {
        if probe.decodeWork > maximumDecodeWork {
            throw .decodeWorkTooLarge(work: probe.decodeWork, scans: probe.format == .jpeg ? probe.scanCount : nil,
                                      limit: maximumDecodeWork)
        }
    }

    /// Throws when the dimensions break a limit; overflow-safe for any `Int` input.
    func check(width: Int, height: Int) throws(ImageError) {
        guard width > 0, height > 0 else { throw .corrupt(reason: "image has zero width or height (\(width)x\(height))") }
        if width > maximumSide || height > maximumSide {
            throw .sideTooLong(width: width, height: height, limit: maximumSide)
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > maximumPixels {
            throw .tooManyPixels(width: width, height: height, limit: maximumPixels)
        }
    }
}
