import Foundation
import RichPushCore

/// A format the image pipeline decodes: the decodable rows of the media table (`AttachmentFormat.isDecodable`), as
/// a type of their own so that every decoder switch is exhaustive. Extension, media type and signature are the
/// table's (`attachmentFormat`). HEIC, AVIF and WebP are read only: they render to JPEG or PNG.
package enum ImageFormat: String, Sendable, Codable, CaseIterable {
    case jpeg, png, webp, gif, heic, avif

    /// The table's row for this format.
    package var attachmentFormat: AttachmentFormat {
        switch self {
        case .jpeg: .jpeg
        case .png: .png
        case .webp: .webp
        case .gif: .gif
        case .heic: .heic
        case .avif: .avif
        }
    }

    /// The image format of a decodable table row; nil for audio and video.
    package init?(_ format: AttachmentFormat) {
        guard format.isDecodable else { return nil }
        self.init(rawValue: format.rawValue)
    }

    /// The format the fetcher sniffed for `bytes` (`FetchedMedia.format`), when the pipeline decodes it. Throws
    /// `unsupportedFormat`, naming what the bytes look like, for nil (unrecognised) and for audio and video. Costs
    /// nothing when the format is decodable; otherwise a look at the first 256 bytes for the message.
    package init(sniffed format: AttachmentFormat?, of bytes: Data) throws(ImageError) {
        guard let format, let image = ImageFormat(format) else {
            throw .unsupportedFormat(detected: UnsupportedFormatDescription.describe(bytes))
        }
        self = image
    }

    /// Sniffs `bytes` (`AttachmentSniffer`): for callers that have no fetcher's verdict (tools, tests, the check
    /// of the renderer's own output). Costs a look at the first 256 bytes.
    package init(sniffing bytes: Data) throws(ImageError) {
        try self.init(sniffed: AttachmentSniffer.format(of: bytes), of: bytes)
    }
}
