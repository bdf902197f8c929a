import Foundation
import RichPushCore

/// The formats the store publishes: the attachment table (`AttachmentFormat`), so that the extension, the
/// signature check and the object store's `Content-Type` never disagree with the sniffer or the CDN docs.
public typealias CacheObjectFormat = AttachmentFormat

extension AttachmentFormat {
    /// Why a produced object cannot be published.
    struct OutputProblem: Error {
        var reason: String
    }

    /// Why `bytes` cannot be published as this format, or nil when they can: no bytes, an image without pixels, or
    /// bytes without the format's signature. Audio and video have no dimensions (0x0); an image must have both.
    ///
    /// The signature check is the store's own guard for any producer (a look at the first 64 bytes), not a second
    /// sniff: the format itself arrives typed and is never parsed from a name.
    func publishingProblem(bytes: Data, width: Int, height: Int) -> OutputProblem? {
        if bytes.isEmpty { return OutputProblem(reason: "empty output") }
        if kind == .image ? (width <= 0 || height <= 0) : (width < 0 || height < 0) {
            return OutputProblem(reason: "invalid dimensions \(width)x\(height)")
        }
        if !matchesSignature(of: bytes) {
            return OutputProblem(reason: "bytes do not carry the \(rawValue) signature")
        }
        return nil
    }
}
