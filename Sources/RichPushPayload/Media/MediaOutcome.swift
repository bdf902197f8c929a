import RichPushCore

/// What became of one media reference: the one typed result the pipeline builds from the store's answer and the
/// renderer and the job's JSON read, so a published result always carries its URL, size and format.
public enum MediaOutcome: Sendable, Hashable {
    /// In the cache at `media.publicURL`; `publication` says whether this job rendered it, passed it through or found
    /// it cached.
    case published(PublishedMedia, Publication)
    /// The source or its image is unusable; the push goes without it. The error says why, and whether it is a
    /// fault of ours (`isLocalFault`).
    case failed(any RichPushError)
    /// Not finished when the job's deadline hit.
    case skipped(reason: String)
    /// Not fetched on purpose (`validate --no-fetch`): the payload keeps the URL as written.
    case notFetched

    /// How published media came to be in the cache.
    public enum Publication: String, Sendable, Hashable {
        /// Fetched and rendered during this job.
        case rendered
        /// Fetched during this job and published unchanged: audio, video, or a validated GIF.
        case passedThrough = "passed_through"
        /// Served from a fresh cache entry, or revalidated with a 304; no render ran.
        case cached
    }
}

/// Media in the cache: where the payload points, how big it is and in what format.
public struct PublishedMedia: Sendable, Hashable {
    public var publicURL: String
    public var format: AttachmentFormat
    public var bytes: Int
    /// The pixel size of an image; nil for audio and video, which have none.
    public var size: PixelSize?
    /// The upright size of the source image it was rendered from, when known (nil for audio, video, and cache
    /// records written before it was kept).
    public var sourceSize: PixelSize?
    /// The SSIMULACRA2 score of an image encoded for a quality target; nil otherwise.
    public var score: Double?

    package init(publicURL: String, format: AttachmentFormat, bytes: Int, size: PixelSize?, sourceSize: PixelSize? = nil,
                score: Double? = nil) {
        self.publicURL = publicURL
        self.format = format
        self.bytes = bytes
        self.size = size
        self.sourceSize = sourceSize
        self.score = score
    }
}

/// A width and a height in pixels.
public struct PixelSize: Sendable, Hashable {
    public var width: Int
    public var height: Int

    package init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

extension MediaOutcome {
    /// Failures are equal when they say the same (code and description), which is all the payload and the job's
    /// JSON read of them; an `any RichPushError` has no equality of its own.
    public static func == (lhs: MediaOutcome, rhs: MediaOutcome) -> Bool {
        switch (lhs, rhs) {
        case (.published(let left, let leftPublication), .published(let right, let rightPublication)):
            left == right && leftPublication == rightPublication
        case (.failed(let left), .failed(let right)): left.code == right.code && left.description == right.description
        case (.skipped(let left), .skipped(let right)): left == right
        case (.notFetched, .notFetched): true
        case (.published, _), (.failed, _), (.skipped, _), (.notFetched, _): false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .published(let media, let publication): hasher.combine(0); hasher.combine(media); hasher.combine(publication)
        case .failed(let error): hasher.combine(1); hasher.combine(error.code); hasher.combine(error.description)
        case .skipped(let reason): hasher.combine(2); hasher.combine(reason)
        case .notFetched: hasher.combine(3)
        }
    }

    /// The URL the payload carries: the published one, or the URL as written when the media was not fetched.
    func publicURL(writtenAs url: String) -> String {
        if case .published(let media, _) = self { return media.publicURL }
        return url
    }
}

extension MediaOutcome {
    /// Whether the field keeps a URL: the cached one, or the sender's when it was not fetched on purpose. Otherwise
    /// the push goes without the media (`Diagnostic.mediaNotShown` says why).
    var keepsField: Bool {
        switch self {
        case .published, .notFetched: true
        case .failed, .skipped: false
        }
    }
}

extension Diagnostic {
    /// The finding for media the push goes without (failed, skipped, or no result), at the field it was removed
    /// from; nil when the field keeps a URL (`MediaOutcome.keepsField`).
    package static func mediaNotShown(_ outcome: MediaOutcome?, at pointer: String) -> Diagnostic? {
        switch outcome {
        case .published?, .notFetched?:
            nil
        case .failed(let error)?:
            Diagnostic(.warning, .mediaFailed, pointer,
                       "media failed (\(error.code.rawValue)): \(error.description); the push is sent without it")
        case .skipped(let reason)?:
            Diagnostic(.warning, .mediaSkipped, pointer, "media skipped: \(reason); the push is sent without it")
        case nil:
            Diagnostic(.warning, .mediaMissing, pointer, "no media result was supplied; the push is sent without it")
        }
    }
}
