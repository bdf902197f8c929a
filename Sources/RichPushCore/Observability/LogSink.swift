/// How much a log line matters. At `info` a log holds start-up, summaries and problems; per-job lines are `debug`.
public enum LogLevel: Int, Comparable, Sendable, CaseIterable {
    case debug, info, warning, error

    /// The lowercase name used in log lines and in `--log-level`.
    public var name: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        }
    }

    /// The level named `name` (any case), or nil.
    public init?(name: String) {
        guard let level = Self.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
        self = level
    }

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Where the library's layers write what an operator should see: one event name and structured fields per line.
///
/// Every layer takes its sink from its configuration; the CLI passes one that writes JSON lines to standard error.
/// Fields never carry secrets, and URLs in them are redacted (`URLRedaction`). A sink must be cheap and must not
/// block: it is called from the hot path and from dedicated I/O threads.
public protocol LogSink: Sendable {
    /// Writes one event at `level`, if the sink's threshold lets it through.
    func log(_ level: LogLevel, _ event: String, _ fields: [(String, JSONValue)])
}

/// A sink that drops everything: the default, so a library user who wires nothing pays nothing.
public struct DiscardingLogSink: LogSink {
    public init() {}
    public func log(_ level: LogLevel, _ event: String, _ fields: [(String, JSONValue)]) {}
}
