import RichPushCore

/// A failure read back from a negative entry (`CachedFailure`): only its stored code and message survive on disk, so
/// this is the typed error that stands for the original one.
package struct RememberedFailure: RichPushError, Hashable {
    package let code: ErrorCode
    package let message: String

    package init(code: ErrorCode, message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { message }

    /// Only permanent failures are ever written as negative entries (`CacheProduction.failure`), so one read back is.
    package var isPermanent: Bool { true }

    /// A local fault is never permanent, so it is never remembered; what is remembered is the origin's or its media's.
    package var isLocalFault: Bool { false }
}

extension CachedFailure {
    /// The entry as a typed error: its stored code and message, permanent and not our fault.
    package var error: RememberedFailure { RememberedFailure(code: code, message: message) }
}
