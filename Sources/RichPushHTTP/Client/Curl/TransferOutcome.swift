import Foundation
import RichPushCore

/// The raw result of one attempt, before HTTP status policy and retries are applied.
struct TransferResponse: Sendable {
    var status: Int
    var body: Data
    /// The media body's format (`SniffedByteCap.finish()`); nil for service requests.
    var format: AttachmentFormat?
    var headers: [String: String]
    var finalURL: String
    var redirectCount: Int
    var timings: FetchTimings
}

/// A failed attempt. `isRetryable` marks connection resets, the only network failure worth a second try.
struct TransferFailure: Error, Sendable {
    var error: FetchError
    var isRetryable: Bool = false
}

typealias TransferOutcome = Result<TransferResponse, TransferFailure>

/// Policy a transfer enforces from inside libcurl callbacks.
struct TransferPolicy: Sendable {
    var maximumBytes: Int
    var stallTimeout: Duration
    var addresses: AddressPolicy
    var allowedHosts: Set<String>?
    var decodesContent: Bool
    /// Service requests keep error bodies (they explain the failure); media fetches only count them.
    var keepsErrorBodies = false
    /// False for HEAD: a `Content-Length` then describes a body that never comes, so it is neither checked against
    /// the cap nor preallocated.
    var expectsBody = true
}
