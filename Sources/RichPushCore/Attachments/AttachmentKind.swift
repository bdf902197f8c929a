/// What a notification attachment is to the device's service extension. Each kind has its own byte limit.
public enum AttachmentKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// JPEG, PNG and GIF (animated or not): re-encoded, except GIF, which passes through once validated.
    case image
    /// MP3, M4A/AAC, AIFF, WAV: passed through unchanged.
    case audio
    /// MP4, MOV, M4V: passed through unchanged.
    case video

    /// Apple's limit for the kind (`UNNotificationAttachment`): images, GIF included, 10 MB; audio 5 MB; video
    /// 50 MB. The fetcher's defaults (`FetchConfiguration`) come from here.
    public var appleByteLimit: Int {
        switch self {
        case .image: 10 * 1024 * 1024
        case .audio: 5 * 1024 * 1024
        case .video: 50 * 1024 * 1024
        }
    }
}
