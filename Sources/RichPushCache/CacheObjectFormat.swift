import Foundation
import RichPushCore

/// The formats the store publishes: the attachment table (`AttachmentFormat`), so that the extension, the
/// signature check and the object store's `Content-Type` never disagree with the sniffer or the CDN docs.
package typealias CacheObjectFormat = AttachmentFormat

extension AttachmentFormat {
    /// Why a produced object cannot be published.
    struct OutputProblem: Error {
        var reason: String
    }

    /// The format to publish `bytes` under, or why they cannot be published: an unknown format, an extension that
    /// names another one, no bytes, an image without pixels, or bytes without the format's signature. Audio and
    /// video have no dimensions (0x0); an image must have both.
    static func publishable(
        bytes: Data, format: String, fileExtension: String, width: Int, height: Int
    ) -> Result<AttachmentFormat, OutputProblem> {
        guard let stored = AttachmentFormat(name: format) else {
            return .failure(OutputProblem(reason: "unsupported output format \(format)"))
        }
        if AttachmentFormat(name: fileExtension) != stored {
            return .failure(OutputProblem(reason: "file extension \(fileExtension) does not match format \(format)"))
        }
        if bytes.isEmpty { return .failure(OutputProblem(reason: "empty output")) }
        if stored.kind == .image ? (width <= 0 || height <= 0) : (width < 0 || height < 0) {
            return .failure(OutputProblem(reason: "invalid dimensions \(width)x\(height)"))
        }
        if !stored.matchesSignature(of: bytes) {
            return .failure(OutputProblem(reason: "bytes do not carry the \(format) signature"))
        }
        return .success(stored)
    }
}
