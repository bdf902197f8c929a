import Foundation
import RichPushCore

/// The formats the store publishes: the published rows of the media table (`AttachmentFormat.isPublished`), so
/// that the extension and the object store's `Content-Type` never disagree with the sniffer or the CDN docs.
public typealias CacheObjectFormat = AttachmentFormat

extension AttachmentFormat {
    /// Why a produced object cannot be published.
    struct OutputProblem: Error {
        var reason: String
    }

    /// Why `bytes` cannot be published as this format, or nil when they can: a format that is never published
    /// (WebP, HEIC, AVIF), no bytes, or an image without pixels. Audio and video have no dimensions (0x0); an image
    /// must have both.
    ///
    /// The bytes' signature is not checked again here: a passed-through body's format is the fetcher's sniff of
    /// those very bytes, and the renderer re-reads its own output's headers (`ImagePipeline.checkOutput`).
    func publishingProblem(bytes: Data, width: Int, height: Int) -> OutputProblem? {
        if !isPublished { return OutputProblem(reason: "\(rawValue) is decoded, never published") }
        if bytes.isEmpty { return OutputProblem(reason: "empty output") }
        if kind == .image ? (width <= 0 || height <= 0) : (width < 0 || height < 0) {
            return OutputProblem(reason: "invalid dimensions \(width)x\(height)")
        }
        return nil
    }
}
