import Synchronization
import RichPush
@testable import RichPushCore
@testable import RichPushCache
@testable import RichPushRedis
@testable import RichPushHTTP
@testable import RichPushPipeline

/// Keeps every event as `level event field=value…`, for tests that check what the consumer logs.
final class RecordingLogSink: LogSink {
    private let recorded = Mutex<[String]>([])

    var lines: [String] { recorded.withLock { $0 } }

    func log(_ level: LogLevel, _ event: String, _ fields: [(String, JSONValue)]) {
        let rendered = fields.map { "\($0.0)=\($0.1.stringValue ?? String(decoding: $0.1.serialized(), as: UTF8.self))" }
        recorded.withLock { $0.append(([level.name, event] + rendered).joined(separator: " ")) }
    }
}
