import RichPushCore
import RichPushHTTP

/// What a caller over the network is told when a media host cannot be fetched because its name does not resolve
/// (`dns`) or resolves only to denied addresses (`blocked_address`): one code and one message for both, so that
/// `serve`'s answers do not tell which internal names exist.
/// (`EnricherConfiguration.concealsUnreachableHostCause`.)
package struct UnreachableHostError: RichPushError, Hashable {
    package let url: String

    /// The codes this error stands in for.
    static let concealedCodes: Set<ErrorCode> = [.blockedAddress, .nameResolution]

    package var code: ErrorCode { .unreachableHost }

    package var description: String {
        "\(URLRedaction.redact(url)): the host cannot be fetched from here (its name does not resolve, or resolves only to addresses that are not fetched)"
    }

    /// Only what a result reports: the cache remembers (or not) the failure this stands in for, as before, so this
    /// value is never stored and its permanence decides nothing.
    package var isPermanent: Bool { false }
    package var isLocalFault: Bool { false }

    /// `error` as a network caller sees it: this error in place of either concealed cause, else `error` itself.
    static func concealing(_ error: any RichPushError, url: String) -> any RichPushError {
        concealedCodes.contains(error.code) ? UnreachableHostError(url: url) : error
    }
}

extension ErrorCode {
    /// `UnreachableHostError`.
    package static let unreachableHost: ErrorCode = "unreachable_host"
}
