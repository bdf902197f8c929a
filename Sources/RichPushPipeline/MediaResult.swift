import Foundation
import RichPushCore
import RichPushPayload

/// What happened to one media reference of a job: where it is in the payload, and its typed `MediaOutcome`, the
/// same value the payload renderer reads and the job's JSON is written from.
public struct MediaResult: Sendable, Hashable {
    /// The `status` field of the job's JSON.
    public enum Status: String, Sendable, Codable {
        /// Fetched and rendered during this job.
        case rendered
        /// Fetched during this job and published unchanged: audio, video, or a validated GIF.
        case passedThrough = "passed_through"
        /// Served from a fresh cache entry, or revalidated with a 304; no render ran.
        case cached
        /// The source or its image is unusable; the error says why.
        case failed
        /// Not finished when the job's deadline hit, or not fetched at all (`validate --no-fetch`).
        case skipped
    }

    /// RFC 6901 pointer to the URL: in the output APNs payload, or in the sender's `request` for an Android field
    /// (`platform` `android`).
    public var pointer: String
    public var source: String
    public var variant: String
    /// Which phones read the field (`MediaReference.platform`).
    package var platform: MediaPlatform
    public var outcome: MediaOutcome
    public var milliseconds: Int

    package init(pointer: String, source: String, variant: String, platform: MediaPlatform = .ios, outcome: MediaOutcome,
                milliseconds: Int) {
        self.pointer = pointer
        self.source = source
        self.variant = variant
        self.platform = platform
        self.outcome = outcome
        self.milliseconds = milliseconds
    }

    public var status: Status {
        switch outcome {
        case .published(_, .rendered): .rendered
        case .published(_, .passedThrough): .passedThrough
        case .published(_, .cached): .cached
        case .failed: .failed
        case .skipped, .notFetched: .skipped
        }
    }

    /// The published media, unless the reference failed, was skipped or was not fetched.
    public var published: PublishedMedia? {
        if case .published(let media, _) = outcome { return media }
        return nil
    }

    /// The error code of a failed or skipped reference (a skip is always `deadline_exceeded`).
    public var errorCode: ErrorCode? {
        switch outcome {
        case .failed(let error): error.code
        case .skipped: .deadlineExceeded
        case .published, .notFetched: nil
        }
    }

    /// Why the reference failed or was skipped.
    public var errorMessage: String? {
        switch outcome {
        case .failed(let error): error.description
        case .skipped(let reason): reason
        case .notFetched: "not fetched (--no-fetch)"
        case .published: nil
        }
    }

    /// True when the media is in the cache and the payload points at it (rendered, passed through or cached).
    public var isUsable: Bool { published != nil }

    /// True when the media failed through a fault of this process (configuration, allocation, its cache disk, a
    /// library misuse), not through its origin or its image, as the error itself says. Such failures are never
    /// cached, and are worth an error log.
    public var isLocalFault: Bool {
        guard case .failed(let error) = outcome else { return false }
        return error.isLocalFault
    }

    /// The failure of a reference whose URL cannot be fetched (`MediaReference.invalidReason`); nothing is fetched.
    init(invalid reference: MediaReference, reason: String) {
        self.init(pointer: reference.pointer, source: URLRedaction.redact(reference.url), variant: reference.variantName,
                  platform: reference.platform, outcome: .failed(InvalidMediaURLError(reason: reason)), milliseconds: 0)
    }

    /// The same result for another reference to the same source and variant, so each field gets its own entry.
    func at(_ reference: MediaReference) -> MediaResult {
        var copy = self
        copy.pointer = reference.pointer
        copy.platform = reference.platform
        return copy
    }
}
