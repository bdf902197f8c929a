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

    public var kind: AttachmentKind {
        switch self {
        case .jpeg, .png, .gif, .webp, .heic, .avif: .image
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
        case .webp: "image/webp"
        case .heic: "image/heic"
        case .avif: "image/avif"
        case .mp3: "audio/mpeg"
        case .m4a: "audio/mp4"
        case .aiff: "audio/aiff"
        case .wav: "audio/wav"
        case .mp4: "video/mp4"
        case .mov: "video/quicktime"
        case .m4v: "video/x-m4v"
        }
    }

    /// How a file of this format starts; `AttachmentSniffer` reads the formats' signatures and nothing else.
    public var signature: AttachmentSignature {
        switch self {
        case .jpeg: .prefix([[0xFF, 0xD8, 0xFF]])
        case .png: .prefix([[0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]])
        case .gif: .prefix([Array("GIF87a".utf8), Array("GIF89a".utf8)])
        case .webp: .chunkContainer(chunk: "RIFF", forms: ["WEBP"])
        case .wav: .chunkContainer(chunk: "RIFF", forms: ["WAVE"])
        case .aiff: .chunkContainer(chunk: "FORM", forms: ["AIFF", "AIFC"])
        case .heic: .fileTypeBrands(["heic", "heix", "heim", "heis"])
        case .avif: .fileTypeBrands(["avif", "avis"])
        case .m4a: .fileTypeBrands(["M4A ", "M4B "])
        case .mp4: .fileTypeBrands(["isom", "iso2", "mp41", "mp42", "avc1"])
        case .m4v: .fileTypeBrands(["M4V ", "M4VH", "M4VP"])
        case .mov: .fileTypeBrands(["qt  "])
        case .mp3: .mpegAudio
        }
    }

    /// True for the formats the image pipeline decodes (and so renders): every image kind.
    public var isDecodable: Bool { kind == .image }

    /// True for the formats the cache stores and the CDN serves (its `types` list): everything but the formats
    /// that are only decoded (HEIC, AVIF), which are rendered to JPEG, PNG or WebP instead.
    public var isPublished: Bool {
        switch self {
        case .heic, .avif: false
        default: true
        }
    }

    /// True for the formats a device's service extension attaches: the published ones but WebP (the renderer
    /// writes it for Android fields only) and QuickTime movies that are not also MP4 (`ISOMediaBrands`). Neither
    /// Apple's documented attachment types nor OneSignal's take `.mov`, so the device would drop it; such movies are
    /// sniffed (for the video byte cap) and refused with `unsupported_format`.
    public var isAttachable: Bool { isPublished && self != .mov && self != .webp }

    /// True for formats published exactly as fetched (media status `passed_through`); false for the renderer's
    /// JPEG, PNG and WebP (and for the formats that are never published).
    public var passesThrough: Bool {
        switch self {
        case .jpeg, .png, .webp, .heic, .avif: false
        default: true
        }
    }

    /// The format named by a format name or a file extension (`jpeg`, `jpg`, `mp4`, ...), case-insensitively.
    public init?(name: String) {
        let lowered = name.lowercased()
        guard let format = Self.allCases.first(where: { $0.rawValue == lowered || $0.fileExtension == lowered }) else {
            return nil
        }
        self = format
    }
}
