/// A stable, machine-readable error code, written in snake_case in every JSON output (`deadline_exceeded`).
///
/// A struct rather than one closed enum so that each layer declares its own codes next to its errors, while every
/// layer compares codes by value (`error.code == .deadlineExceeded`), never by spelling out strings. Codes that
/// several layers use are declared here; `ErrorCodeSpellingTests` fails on a declared code spelled anywhere else.
public struct ErrorCode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }

    public var description: String { rawValue }

    /// The work ran out of time: a skip, not a fault of the input.
    public static let deadlineExceeded: ErrorCode = "deadline_exceeded"
    /// The caller went away.
    public static let cancelled: ErrorCode = "cancelled"
    /// Bytes that are not (or will not become) a format devices take: an image format nothing decodes, or a
    /// QuickTime movie with no MP4 brand. Imaging finds the first, Pipeline the second.
    public static let unsupportedFormat: ErrorCode = "unsupported_format"
    /// An MP4-family file whose boxes do not hold together (`ISOMediaStructure`), found by Pipeline before publishing.
    public static let corruptMedia: ErrorCode = "corrupt_media"
    /// A render produced bytes that are not the format they claim; Pipeline and Cache both refuse to publish them.
    public static let invalidOutput: ErrorCode = "invalid_output"
    /// A layer's configuration cannot work (fetch, cache, queue): always our fault, never the origin's.
    public static let invalidConfiguration: ErrorCode = "invalid_configuration"
    /// A URL that does not parse: a media URL (HTTP) or the Redis URL (Redis).
    public static let invalidURL: ErrorCode = "invalid_url"
}

/// What every layer's error type is: a stable `code`, a human-readable description (no secrets, URLs redacted), and
/// how to treat it. Each error type answers for itself, so no layer re-classifies another's errors by their codes.
public protocol RichPushError: Error, CustomStringConvertible, Sendable {
    var code: ErrorCode { get }
    /// True when asking again would give the same answer (a 4xx, an undecodable image, a bad configuration), so the
    /// failure may be remembered as a negative cache entry instead of being retried. Deadlines, cancellation, network
    /// trouble and faults of this process are never permanent.
    var isPermanent: Bool { get }
    /// True for a fault of this process (its configuration, memory, disk, or a library misuse), never blamed on the
    /// origin or its media: never remembered as a negative entry, and logged at error level.
    var isLocalFault: Bool { get }
}
