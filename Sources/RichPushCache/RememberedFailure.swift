import RichPushCore

/// A failure read back from a negative entry (`CachedFailure`): only its stored code and message survive on disk, so
/// this is the typed error that stands for the original one.
public struct RememberedFailure: RichPushError, Hashable {
    public let code: ErrorCode
    public let message: String

    public init(code: ErrorCode, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// Only permanent failures are ever written as negative entries (`CacheProduction.failure`), so one read back is.
    public var isPermanent: Bool { true }

    /// A local fault is never permanent, so it is never remembered; what is remembered is the origin's or its media's.
    public var isLocalFault: Bool { false }
}

extension CachedFailure {
    /// The entry as a typed error: its stored code and message, permanent and not our fault.
    public var error: RememberedFailure { RememberedFailure(code: code, message: message) }
}
