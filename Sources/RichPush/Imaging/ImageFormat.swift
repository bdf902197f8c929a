/// A raster format RichPush can read and publish.
public enum ImageFormat: String, Sendable, Codable {
    case jpeg, png, webp, gif

    /// The file extension iOS extensions use to pick the attachment type.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        case .gif: "gif"
        }
    }

    /// The exact `Content-Type` to serve the bytes with.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .gif: "image/gif"
        }
    }
}
