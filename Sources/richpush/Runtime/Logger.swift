import Foundation
import RichPush

/// JSON-lines logger on standard error, and the library's `LogSink`. Job lines carry ids, statuses and times, never
/// URLs (whose query strings often carry signatures); messages that name a URL pass it through `URLRedaction` first.
///
/// At `info` (the default) the log is the start-up line, summaries and problems; one line per job is `debug`. Every
/// line respects `--log-level`, the start and summary lines included (`--log-level error` leaves only errors).
struct Logger: LogSink {
    typealias Level = LogLevel

    let minimumLevel: Level

    /// One shared format (a value type, safe from any thread): UTC with milliseconds.
    private static let timestampStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// The closing summary of a command (info).
    func summary(_ fields: [(String, JSONValue)]) {
        log(.info, "summary", fields)
    }

    /// One line when a command starts (info): version, mode and what it will use, so a log explains itself.
    func started(_ command: String, _ fields: [(String, JSONValue)]) {
        log(.info, "start", [("version", .string(RichPushInfo.version)), ("command", .string(command))] + fields)
    }

    /// Logs an error where no command's logger reaches (start-up, signal handling, file writers); an error passes
    /// every `--log-level`, so this needs no settings.
    static func error(_ event: String, _ message: String, _ fields: [(String, JSONValue)] = []) {
        Logger(minimumLevel: .error).log(.error, event, fields + [("message", .string(message))])
    }

    func log(_ level: Level, _ event: String, _ fields: [(String, JSONValue)] = []) {
        guard level >= minimumLevel else { return }
        write(level, event, fields)
    }

    private func write(_ level: Level, _ event: String, _ fields: [(String, JSONValue)]) {
        var object = JSONObject()
        object["time"] = .string(Date().formatted(Self.timestampStyle))
        object["level"] = .string(level.name)
        object["event"] = .string(event)
        for (key, value) in fields { object[key] = value }
        StandardError.write(String(decoding: JSONValue.object(object).serialized(), as: UTF8.self) + "\n")
    }

    /// One line per job outcome (debug; warning when rejected; `DocumentProcessor`'s job log): id, input line or stream entry id, status, the
    /// rejection's code, each media item's status and error code, and milliseconds; nothing from the payload. (A
    /// media failure of our own is logged by the enricher, through this logger as its `LogSink`.)
    func jobFinished(_ result: JobResult) {
        let level: Level = result.status == .rejected ? .warning : .debug
        guard level >= minimumLevel else { return }
        var fields: [(String, JSONValue)] = [("id", result.id.map(JSONValue.string) ?? .null)]
        if let line = result.line { fields.append(("line", .number(String(line)))) }
        if let entryID = StreamEntryContext.entryID { fields.append(("entry_id", .string(entryID))) }
        fields.append(("status", .string(result.status.rawValue)))
        if let code = result.rejectionCode { fields.append(("code", .string(code))) }
        if !result.media.isEmpty {
            fields.append(("media", .array(result.media.map { media in
                var item = JSONObject()
                item["status"] = .string(media.status.rawValue)
                if let code = media.errorCode { item["code"] = .string(code.rawValue) }
                return .object(item)
            })))
        }
        fields.append(("ms", .number(String(result.timings.totalMilliseconds))))
        write(level, "job", fields)
    }
}
