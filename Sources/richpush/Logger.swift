import Foundation
import RichPush

/// JSON-lines logger on standard error. Job lines carry ids, statuses and times, never URLs (whose query strings
/// often carry signatures); messages that name a URL pass it through `URLRedaction` first.
struct Logger: Sendable {
    enum Level: Int, Comparable, Sendable, CaseIterable {
        case debug, info, warning, error

        var name: String {
            switch self {
            case .debug: return "debug"
            case .info: return "info"
            case .warning: return "warning"
            case .error: return "error"
            }
        }

        init?(name: String) {
            guard let level = Level.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
            self = level
        }

        static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    let minimumLevel: Level

    /// The closing summary of a command: always written, whatever the level, as the user asked for the run.
    func summary(_ fields: [(String, JSONValue)]) {
        write(.info, "summary", fields)
    }

    func log(_ level: Level, _ event: String, _ fields: [(String, JSONValue)] = []) {
        guard level >= minimumLevel else { return }
        write(level, event, fields)
    }

    private func write(_ level: Level, _ event: String, _ fields: [(String, JSONValue)]) {
        var object = JSONObject()
        object["time"] = .string(ISO8601DateFormatter().string(from: Date()))
        object["level"] = .string(level.name)
        object["event"] = .string(event)
        for (key, value) in fields { object[key] = value }
        StandardError.write(String(decoding: JSONValue.object(object).serialized(), as: UTF8.self) + "\n")
    }

    /// One line per job outcome: id, line, status and milliseconds, nothing from the payload.
    func jobFinished(_ result: JobResult) {
        var fields: [(String, JSONValue)] = [
            ("id", result.id.map(JSONValue.string) ?? .null),
            ("status", .string(result.status.rawValue)),
            ("ms", .number(String(result.timings.totalMilliseconds))),
        ]
        if let line = result.line { fields.insert(("line", .number(String(line))), at: 1) }
        log(result.status == .rejected ? .warning : .info, "job", fields)
        for media in result.media where media.isLocalFault {
            log(.error, "local_fault", [
                ("id", result.id.map(JSONValue.string) ?? .null), ("code", .string(media.errorCode ?? "")),
                ("message", .string(media.errorMessage ?? "")),
            ])
        }
    }
}
