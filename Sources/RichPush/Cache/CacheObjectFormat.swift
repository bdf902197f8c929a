import Foundation

/// The formats the store publishes, their file extensions, and a signature check so that an object's extension
/// always names its real format (device extensions choose the attachment type from the file name). Only the types
/// every notification service extension accepts as an image attachment: JPEG, PNG and GIF (not WebP).
enum CacheObjectFormat: String, CaseIterable {
    case jpeg, png, gif

    init?(name: String) {
        switch name.lowercased() {
        case "jpeg", "jpg": self = .jpeg
        case "png": self = .png
        case "gif": self = .gif
        default: return nil
        }
    }

    var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .png: return "png"
        case .gif: return "gif"
        }
    }

    /// Whether `bytes` start with this format's signature.
    func matchesSignature(of bytes: Data) -> Bool {
        let head = [UInt8](bytes.prefix(12))
        func starts(_ signature: [UInt8]) -> Bool { head.starts(with: signature) }
        switch self {
        case .jpeg: return starts([0xFF, 0xD8, 0xFF])
        case .png: return starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        case .gif: return starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8))
        }
    }

    /// Why a produced object cannot be published.
    struct OutputProblem: Error {
        var reason: String
    }

    /// The format to publish `bytes` under, or why they cannot be published: an unknown format, an extension that
    /// names another one, no bytes, no pixels, or bytes without the format's signature.
    static func publishable(
        bytes: Data, format: String, fileExtension: String, width: Int, height: Int
    ) -> Result<CacheObjectFormat, OutputProblem> {
        guard let stored = CacheObjectFormat(name: format) else {
            return .failure(OutputProblem(reason: "unsupported output format \(format)"))
        }
        if CacheObjectFormat(name: fileExtension) != stored {
            return .failure(OutputProblem(reason: "file extension \(fileExtension) does not match format \(format)"))
        }
        if bytes.isEmpty { return .failure(OutputProblem(reason: "empty output")) }
        if width <= 0 || height <= 0 {
            return .failure(OutputProblem(reason: "invalid dimensions \(width)x\(height)"))
        }
        if !stored.matchesSignature(of: bytes) {
            return .failure(OutputProblem(reason: "bytes do not carry the \(format) signature"))
        }
        return .success(stored)
    }

    /// The `Content-Type` an object of this format is served with.
    var mediaType: String {
        switch self {
        case .jpeg: return "image/jpeg"
        case .png: return "image/png"
        case .gif: return "image/gif"
        }
    }
}
