import RichPushCore

/// A media reference whose URL cannot be fetched (`MediaReference.invalidReason`): the payload's own fault, found
/// before anything is fetched, so it is permanent and never ours.
package struct InvalidMediaURLError: RichPushError, Hashable {
    /// Why the URL cannot be fetched, as the parser's diagnostic says.
    package let reason: String

    package init(reason: String) { self.reason = reason }

    package var code: ErrorCode { ErrorCode(DiagnosticCode.mediaURLInvalid.rawValue) }
    package var description: String { reason }
    package var isPermanent: Bool { true }
    package var isLocalFault: Bool { false }
}
