import RichPushCore
import RichPushImaging

/// Why fetched media cannot be published, found after the fetch: by the image pipeline, or by Pipeline's own checks
/// of audio, video and rendered output. Every description starts with the source URL, redacted.
package enum MediaError: RichPushError {
    /// The image pipeline refused the source; the `ImageError` decides the code and whether it is retried.
    case image(url: String, ImageError)
    /// A QuickTime movie whose ftyp lists no MP4 compatible brand: devices and OneSignal take MP4 only.
    case quickTimeWithoutMP4Brand(url: String)
    /// An MP4-family file whose boxes do not hold together (`ISOMediaStructure`).
    case corruptMedia(url: String, format: AttachmentFormat, problem: String)
    /// The renderer wrote a format that is never published (it only reads WebP, HEIC and AVIF).
    case unpublishableOutput(url: String, format: ImageFormat)

    package var code: ErrorCode {
        switch self {
        case .image(_, let error): error.code
        case .quickTimeWithoutMP4Brand: .unsupportedFormat
        case .corruptMedia: .corruptMedia
        case .unpublishableOutput: .invalidOutput
        }
    }

    /// The bytes decide every case but an image error's, which answers for itself. The same source and renderer
    /// give the same output, so even an unpublishable output is remembered until the renderer version changes the key.
    package var isPermanent: Bool {
        if case .image(_, let error) = self { return error.isPermanent }
        return true
    }

    /// Only an image error can be ours; what the bytes are is the origin's.
    package var isLocalFault: Bool {
        if case .image(_, let error) = self { return error.isLocalFault }
        return false
    }

    package var description: String {
        switch self {
        case .image(let url, let error):
            "\(URLRedaction.redact(url)): \(error.description)"
        case .quickTimeWithoutMP4Brand(let url):
            "\(URLRedaction.redact(url)): a QuickTime movie whose ftyp lists no MP4 compatible brand; iOS attachments and OneSignal take MP4, so remux it as .mp4"
        case .corruptMedia(let url, let format, let problem):
            "\(URLRedaction.redact(url)): \(format.rawValue): \(problem)"
        case .unpublishableOutput(let url, let format):
            "\(URLRedaction.redact(url)): unsupported output format \(format)"
        }
    }
}
