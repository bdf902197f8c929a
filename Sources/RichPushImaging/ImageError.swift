import RichPushCore
/// Why an image could not be rendered.
public enum ImageError: RichPushError, Equatable {
    case unsupportedFormat(detected: String)
    case tooManyPixels(width: Int, height: Int, limit: Int)
    case sideTooLong(width: Int, height: Int, limit: Int)
    /// An animation with more frames, or more pixels over all its frames, than a device should decode.
    case animationTooLarge(reason: String)
    case sourceTooLarge(bytes: Int, limit: Int)
    /// Decoding would produce more samples than the limit (`ImageLimits.maximumDecodeWork`), counted from the
    /// headers before any decoding; `scans` for a JPEG.
    case decodeWorkTooLarge(work: Int, scans: Int?, limit: Int)
    case corrupt(reason: String)
    case unsupportedVariant(String)
    case deadlineExceeded
    case cancelled
    case encodeFailed(reason: String)
    case outputTooLarge(bytes: Int, limit: Int)
    case outputCheckFailed(reason: String)
    /// The allocator refused a working buffer: a fault of this process, not of the image.
    case outOfMemory(bytes: Int)

    /// A stable snake_case identifier for JSON output.
    public var code: ErrorCode {
        switch self {
        case .unsupportedFormat: .unsupportedFormat
        case .tooManyPixels: "too_many_pixels"
        case .sideTooLong: "side_too_long"
        case .animationTooLarge: "animation_too_large"
        case .sourceTooLarge: "source_too_large"
        case .decodeWorkTooLarge: "decode_work_too_large"
        case .corrupt: "corrupt_image"
        case .unsupportedVariant: "unsupported_variant"
        case .deadlineExceeded: .deadlineExceeded
        case .cancelled: .cancelled
        case .encodeFailed: "encode_failed"
        case .outputTooLarge: "output_too_large"
        case .outputCheckFailed: "output_check_failed"
        case .outOfMemory: "out_of_memory"
        }
    }

    /// True for faults of our own rather than of the source image (the encoder failed, the variant is
    /// misconfigured, our output did not pass its own check, memory ran out): never remembered as negative entries.
    public var isLocalFault: Bool {
        switch self {
        case .unsupportedVariant, .encodeFailed, .outputCheckFailed, .outOfMemory: true
        default: false
        }
    }

    /// True when the image itself is the reason, so rendering it again gives the same answer. A deadline or
    /// cancellation is retried next time, and so is a fault of ours.
    public var isPermanent: Bool {
        switch self {
        case .deadlineExceeded, .cancelled: false
        default: !isLocalFault
        }
    }

    public var description: String {
        switch self {
        case .unsupportedFormat(let detected): "unsupported image format: \(detected)"
        case .tooManyPixels(let width, let height, let limit): "image is \(width)x\(height), more than the \(limit)-pixel limit"
        case .sideTooLong(let width, let height, let limit): "image is \(width)x\(height), a side is longer than \(limit) pixels"
        case .animationTooLarge(let reason): "animation is too large: \(reason)"
        case .sourceTooLarge(let bytes, let limit): "image is \(bytes) bytes, more than the \(limit)-byte limit"
        case .corrupt(let reason): "corrupt image: \(reason)"
        case .decodeWorkTooLarge(let work, let scans, let limit):
            "decoding the image would produce \(work / 1_000_000) M samples\(scans.map { " over its \($0) scans" } ?? ""), more than the \(limit / 1_000_000) M-sample limit"
        case .unsupportedVariant(let what): "unsupported image variant: \(what)"
        case .deadlineExceeded: "image processing ran past its deadline"
        case .cancelled: "image processing was cancelled"
        case .encodeFailed(let reason): "encoding failed: \(reason)"
        case .outputTooLarge(let bytes, let limit): "encoded image is \(bytes) bytes at the lowest allowed quality, over the \(limit)-byte budget"
        case .outputCheckFailed(let reason): "encoded output failed its check: \(reason)"
        case .outOfMemory(let bytes): "could not allocate \(bytes) bytes of working memory"
        }
    }
}
