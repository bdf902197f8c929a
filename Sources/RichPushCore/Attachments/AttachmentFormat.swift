import Foundation

/// Every media format RichPush recognises, and the one table that the sniffer (`AttachmentSniffer`), the image
/// pipeline (its decodable rows, `ImageFormat`), the cache, the object store's `Content-Type` and the CDN
/// documentation (docs/deploy.md, `deploy/nginx-richpush.conf`) follow: kind (and so byte cap), file extension, media type,
/// signature, and whether it is decoded, published and attached.
///
/// JPEG and PNG are what the renderer writes, and WebP for fields only Android reads. GIF, audio and video are
/// published as the origin sent them, never re-encoded. HEIC and AVIF are decoded but never published (not every
/// device decodes them).
public enum AttachmentFormat: String, Sendable, Hashable, Codable, CaseIterable {
    case jpeg, png, gif, webp, heic, avif
    case mp3, m4a, aiff, wav
    case mp4, mov, m4v

    /// One format's row of the table: kind, extension, media type, signature, and whether it is published and
    /// passed through as fetched (the properties below say what each means).
    private struct Row {
        var kind: AttachmentKind
        var fileExtension: String
        var mediaType: String
        var signature: AttachmentSignature
        var isPublished: Bool
        var passesThrough: Bool

        init(_ kind: AttachmentKind, _ fileExtension: String, _ mediaType: String, _ signature: AttachmentSignature,
             published: Bool, passesThrough: Bool) {
            (self.kind, self.fileExtension, self.mediaType, self.signature) = (kind, fileExtension, mediaType, signature)
            (isPublished, self.passesThrough) = (published, passesThrough)
        }
    }

    /// The table, one row per format, as imgproxy's format registry is: a format is added or changed in one place,
    /// and the switch makes a missing row a compile error.
    private var row: Row {
        switch self {
        case .jpeg: Row(.image, "jpg", "image/jpeg", .prefix([[0xFF, 0xD8, 0xFF]]),
                         published: true, passesThrough: false)
        case .png: Row(.image, "png", "image/png", .prefix([[0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]]),
                        published: true, passesThrough: false)
        case .gif: Row(.image, "gif", "image/gif", .prefix([Array("GIF87a".utf8), Array("GIF89a".utf8)]),
                        published: true, passesThrough: true)
        case .webp: Row(.image, "webp", "image/webp", .chunkContainer(chunk: "RIFF", forms: ["WEBP"]),
                         published: true, passesThrough: false)
        case .heic: Row(.image, "heic", "image/heic", .fileTypeBrands(["heic", "heix", "heim", "heis"]),
                         published: false, passesThrough: false)
        case .avif: Row(.image, "avif", "image/avif", .fileTypeBrands(["avif", "avis"]),
                         published: false, passesThrough: false)
        case .mp3: Row(.audio, "mp3", "audio/mpeg", .mpegAudio,
                        published: true, passesThrough: true)
        case .m4a: Row(.audio, "m4a", "audio/mp4", .fileTypeBrands(["M4A ", "M4B "]),
                        published: true, passesThrough: true)
        case .aiff: Row(.audio, "aiff", "audio/aiff", .chunkContainer(chunk: "FORM", forms: ["AIFF", "AIFC"]),
                         published: true, passesThrough: true)
        case .wav: Row(.audio, "wav", "audio/wav", .chunkContainer(chunk: "RIFF", forms: ["WAVE"]),
                        published: true, passesThrough: true)
        case .mp4: Row(.video, "mp4", "video/mp4", .fileTypeBrands(["isom", "iso2", "mp41", "mp42", "avc1"]),
                        published: true, passesThrough: true)
        case .mov: Row(.video, "mov", "video/quicktime", .fileTypeBrands(["qt  "]),
                        published: true, passesThrough: true)
        case .m4v: Row(.video, "m4v", "video/x-m4v", .fileTypeBrands(["M4V ", "M4VH", "M4VP"]),
                        published: true, passesThrough: true)
        }
    }

    public var kind: AttachmentKind { row.kind }

    /// The extension of the published object; device extensions choose the attachment type from it.
    public var fileExtension: String { row.fileExtension }

    /// The exact `Content-Type` the object is served and uploaded with.
    public var mediaType: String { row.mediaType }

    /// How a file of this format starts; `AttachmentSniffer` reads the formats' signatures and nothing else.
    package var signature: AttachmentSignature { row.signature }

    /// True for the formats the image pipeline decodes (and so renders): every image kind.
    public var isDecodable: Bool { kind == .image }

    /// True for the formats the cache stores and the CDN serves (its `types` list): everything but the formats
    /// that are only decoded (HEIC, AVIF), which are rendered to JPEG, PNG or WebP instead.
    public var isPublished: Bool { row.isPublished }

    /// True for the formats a device's service extension attaches: the published ones but WebP (the renderer
    /// writes it for Android fields only) and QuickTime movies that are not also MP4 (`ISOMediaBrands`). Neither
    /// Apple's documented attachment types nor OneSignal's take `.mov`, so the device would drop it; such movies are
    /// sniffed (for the video byte cap) and refused with `unsupported_format`.
    public var isAttachable: Bool { isPublished && self != .mov && self != .webp }

    /// True for formats published exactly as fetched (media status `passed_through`); false for the renderer's
    /// JPEG, PNG and WebP (and for the formats that are never published).
    public var passesThrough: Bool { row.passesThrough }

    /// The format named by a format name or a file extension (`jpeg`, `jpg`, `mp4`, ...), case-insensitively.
    public init?(name: String) {
        let lowered = name.lowercased()
        guard let format = Self.allCases.first(where: { $0.rawValue == lowered || $0.fileExtension == lowered }) else {
            return nil
        }
        self = format
    }
}
