import Foundation
import RichPushCore
import RichPushPayload
import RichPushImaging
import RichPushHTTP
import RichPushCache

/// What happened to one media reference of a job.
public struct MediaResult: Sendable, Hashable {
    public enum Status: String, Sendable, Codable {
        /// Fetched and rendered during this job.
        case rendered
        /// Fetched during this job and published unchanged: audio, video, or a validated GIF.
        case passedThrough = "passed_through"
        /// Served from a fresh cache entry, or revalidated with a 304; no render ran.
        case cached
        /// The source or its image is unusable; the error says why.
        case failed
        /// Not finished when the job's deadline hit.
        case skipped
    }

    /// RFC 6901 pointer to the URL in the output payload.
    public var pointer: String
    public var source: String
    public var variant: String
    public var status: Status
    public var cachedURL: String?
    public var width: Int?
    public var height: Int?
    public var bytes: Int?
    public var format: String?
    public var milliseconds: Int
    public var errorCode: ErrorCode?
    public var errorMessage: String?

    public init(
        pointer: String, source: String, variant: String, status: Status, cachedURL: String? = nil,
        width: Int? = nil, height: Int? = nil, bytes: Int? = nil, format: String? = nil,
        milliseconds: Int, errorCode: ErrorCode? = nil, errorMessage: String? = nil
    ) {
        self.pointer = pointer
        self.source = source
        self.variant = variant
        self.status = status
        self.cachedURL = cachedURL
        self.width = width
        self.height = height
        self.bytes = bytes
        self.format = format
        self.milliseconds = milliseconds
        self.errorCode = errorCode
        self.errorMessage = errorMessage
    }

    /// True when the media failed through a fault of this process (configuration, allocation, a library
    /// misuse), not through its origin or its image. Such failures are never cached, and are worth an error log.
    /// True when the media is in the cache and the payload points at it (rendered, passed through or cached).
    public var isUsable: Bool { status == .rendered || status == .passedThrough || status == .cached }

    public var isLocalFault: Bool {
        guard status == .failed || status == .skipped, let errorCode else { return false }
        return FetchError.localFaultCodes.contains(errorCode) || ImageError.localFaultCodes.contains(errorCode)
    }

    /// The failure of a reference whose URL cannot be fetched (`MediaReference.invalidReason`); nothing is fetched.
    init(invalid reference: MediaReference, reason: String) {
        self.init(pointer: reference.pointer, source: URLRedaction.redact(reference.url), variant: reference.variantName,
                  status: .failed, milliseconds: 0, errorCode: ErrorCode(DiagnosticCode.mediaURLInvalid.rawValue), errorMessage: reason)
    }

    /// The same result for another reference to the same source, so each pointer gets its own entry.
    func at(pointer: String) -> MediaResult {
        var copy = self
        copy.pointer = pointer
        return copy
    }

    /// The form the payload renderer takes.
    var outcome: MediaOutcome {
        switch status {
        case .rendered, .cached, .passedThrough:
            if let cachedURL, let bytes, let format {
                // Audio and video have no dimensions; the renderer reads none of them for attachments.
                return .rendered(publicURL: cachedURL, width: width ?? 0, height: height ?? 0, bytes: bytes, format: format)
            }
            return .failed(code: "internal", message: "rendered media without its details")
        case .failed:
            return .failed(code: (errorCode ?? "failed").rawValue, message: errorMessage ?? "media failed")
        case .skipped:
            return .skipped(reason: errorMessage ?? "the job's deadline passed before this media finished")
        }
    }
}
