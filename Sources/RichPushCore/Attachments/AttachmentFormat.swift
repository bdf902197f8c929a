import Foundation

/// Every format RichPush publishes into the cache, and the one table the sniffer, the cache, the object store's
/// `Content-Type` and the CDN documentation (README, `deploy/nginx-richpush.conf`) follow: kind (and so byte cap),
/// file extension, media type, and whether the bytes pass through unchanged.
///
/// JPEG and PNG are what the renderer writes. GIF, audio and video are published as the origin sent them, never
/// re-encoded. WebP, HEIC and AVIF are read but never published (not every extension accepts them).
public enum AttachmentFormat: String, Sendable, Hashable, Codable, CaseIterable {
    case jpeg, png, gif
    case mp3, m4a, aiff, wav
    case mp4, mov, m4v

    public var kind: AttachmentKind {
        switch self {
        case .jpeg, .png, .gif: .image
        case .mp3, .m4a, .aiff, .wav: .audio
        case .mp4, .mov, .m4v: .video
        }
    }

    /// The extension of the published object; device extensions choose the attachment type from it.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        default: rawValue
        }
    }

    /// The exact `Content-Type` the object is served and uploaded with.
    public var mediaType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .mp3: "audio/mpeg"
        case .m4a: "audio/mp4"
        case .aiff: "audio/aiff"
        case .wav: "audio/wav"
        case .mp4: "video/mp4"
        case .mov: "video/quicktime"
        case .m4v: "video/x-m4v"
        }
    }

    /// True for formats published exactly as fetched (media status `passed_through`); false for the renderer's
    /// JPEG and PNG.
    public var passesThrough: Bool {
        switch self {
        case .jpeg, .png: false
        default: true
        }
    }

    /// The format named by a format name or a file extension (`jpeg`, `jpg`, `mp4`, ...), case-insensitively.
    public init?(name: String) {
        let lowered = name.lowercased()
        if lowered == "jpg" { self = .jpeg; return }
        guard let format = AttachmentFormat(rawValue: lowered) else { return nil }
        self = format
    }

    /// Whether `bytes` start the way this format starts (`AttachmentSniffer`). Costs a look at the first bytes.
    public func matchesSignature(of bytes: Data) -> Bool {
        AttachmentSniffer.format(ofFileStartingWith: [UInt8](bytes.prefix(ISOMediaBrands.brandInspectionLength))) == self
    }

    /// False for QuickTime movies that are not also MP4 (`ISOMediaBrands`): neither Apple's documented attachment
    /// types nor OneSignal's take `.mov`, so the device would drop it. They are sniffed (for the video byte cap)
    /// and refused with `unsupported_format`.
    public var isPublished: Bool { self != .mov }
}
