/// A raster format RichPush can read and publish. HEIC and AVIF are read only: they render to JPEG or PNG.
public enum ImageFormat: String, Sendable, Codable {
    case jpeg, png, webp, gif, heic, avif

    /// The file extension iOS extensions use to pick the attachment type.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        case .gif: "gif"
        case .heic: "heic"
        case .avif: "avif"
        }
    }

    /// The exact `Content-Type` to serve the bytes with.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .gif: "image/gif"
        case .heic: "image/heic"
        case .avif: "image/avif"
        }
    }
}
