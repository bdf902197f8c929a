import RichPushCore

/// A media reference whose URL cannot be fetched (`MediaReference.invalidReason`): the payload's own fault, found
/// before anything is fetched, so it is permanent and never ours.
public struct InvalidMediaURLError: RichPushError, Hashable {
    /// Why the URL cannot be fetched, as the parser's diagnostic says.
    public let reason: String

    public init(reason: String) { self.reason = reason }

    public var code: ErrorCode { ErrorCode(DiagnosticCode.mediaURLInvalid.rawValue) }
    public var description: String { reason }
    public var isPermanent: Bool { true }
    public var isLocalFault: Bool { false }
}
