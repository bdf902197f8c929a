/// Limits enforced from headers alone, before any pixel memory is allocated.
public struct ImageLimits: Sendable, Hashable, Codable {
    /// Largest width × height accepted (default 40 MP).
    public var maximumPixels: Int
    /// Largest width or height accepted (default 16384).
    public var maximumSide: Int
    /// Largest encoded input accepted (default 10 MB, Apple's attachment limit).
    public var maximumSourceBytes: Int

    public init(maximumPixels: Int = 40_000_000, maximumSide: Int = 16_384, maximumSourceBytes: Int = 10 * 1024 * 1024) {
        self.maximumPixels = maximumPixels
        self.maximumSide = maximumSide
        self.maximumSourceBytes = maximumSourceBytes
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
