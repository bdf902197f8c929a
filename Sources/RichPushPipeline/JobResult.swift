import Foundation
import RichPushCore
import RichPushPayload

/// The outcome of one job: what `process` prints as one NDJSON line.
public struct JobResult: Sendable {
    public struct Timings: Sendable, Hashable {
        /// Fetch, render and cache work for all media, concurrently.
        public var mediaMilliseconds = 0
        /// From job start to result, unrounded, for metrics (a warm job takes well under a millisecond).
        public var total: Duration = .zero
        /// `total` in whole milliseconds, as JSON output and logs show it.
        public var totalMilliseconds: Int { Int(total / .milliseconds(1)) }

        /// Sets the total to the time since `start`.
        mutating func finish(since start: ContinuousClock.Instant) {
            total = max(.zero, ContinuousClock.now - start)
        }
    }

    public var id: String?
    /// 1-based input line, when the job came from a stream of lines.
    public var line: Int?
    public var status: JobStatus
    /// The input's addressing and scheduling fields, verbatim (`NotificationJob.target`): the device token(s),
    /// Pushwoosh `devices`/`users`/`filter`/`send_date`, Pushfa targeting keys, unknown envelope keys. Nil only
    /// when the document could not be parsed into a job.
    public var target: JSONObject?
    /// The sender's own document, in its own shape, ready to post to the API it was written for (`SenderRequest`):
    /// only media URLs and the fields the shape needs changed. The same value for every job of one document; nil
    /// when the document could not be parsed. It keeps the sender's credentials (`auth`, `api_private_key`), so it
    /// goes only to the sender: never into logs, `validate` reports or the preview.
    public var request: JSONValue?
    /// The request to send to APNs; absent when the job is rejected.
    public var apns: APNsRequest?
    public var media: [MediaResult] = []
    /// What became of the job's Android image fields (`MediaReference.Role.androidImage`), by their pointer in the
    /// request, for `SenderRequest`.
    var androidOutcomes: [ExactString: MediaOutcome] = [:]
    public var diagnostics: [Diagnostic]
    public var timings = Timings()

    package init(id: String?, status: JobStatus, diagnostics: [Diagnostic] = []) {
        self.id = id
        self.status = status
        self.diagnostics = diagnostics
    }

    /// The result of rendering `job`: its parse diagnostics followed by the renderer's; `rejected` without an APNs
    /// request when the renderer rejects, otherwise `status`.
    init(job: NotificationJob, media: [MediaResult], rendering: RenderOutcome, status: JobStatus) {
        self.init(id: job.id, status: status)
        self.target = job.target
        self.media = media
        switch rendering {
        case .rejected(let diagnostics):
            self.status = .rejected
            self.diagnostics = job.diagnostics + diagnostics
        case .rendered(let request, let diagnostics):
            apns = request
            self.diagnostics = job.diagnostics + diagnostics
        }
    }

    /// The result for a document that could not be parsed into any job.
    init(rejectedDocument diagnostics: [Diagnostic], line: Int?) {
        self.init(id: nil, status: .rejected, diagnostics: diagnostics)
        self.line = line
    }

    /// The code of the first error diagnostic of a rejected job (what logs and metrics name it by); nil otherwise.
    public var rejectionCode: String? {
        guard status == .rejected else { return nil }
        return diagnostics.first { $0.severity == .error }?.code ?? "rejected"
    }

    /// The JSON object printed by `process` and written by `consume`, keys in a fixed order: id, line, status,
    /// target, request, apns, media, diagnostics, timings.
    public var json: JSONValue { json(parts: .all) }

    /// The result's JSON with only `parts` of the optional keys (`ResultParts`). Without `request` for a job whose
    /// document's request is written once beside it (a Pushwoosh request's jobs), and for reports that must not
    /// carry the sender's credentials (`validate`). The tree is what `write(to:parts:)` writes, read back: the
    /// written form is the one definition of the layout.
    public func json(parts: ResultParts) -> JSONValue {
        var writer = JSONWriter()
        write(to: &writer, parts: parts)
        // Our own compact JSON always parses; null would only stand for a bug in the writer.
        return (try? JSONParser.parse(Data(writer.bytes))) ?? .null
    }

    /// Writes the result's JSON object with only `parts` of the optional keys, straight to bytes: a result line
    /// builds no tree of its own, and the request and payload trees it carries are written as they are.
    package func write(to writer: inout JSONWriter, parts: ResultParts) {
        writer.beginObject()
        writer.key("id")
        if let id { writer.string(id) } else { writer.null() }
        if let line { writer.member("line", line) }
        writer.member("status", status.rawValue)
        writer.key("target")
        if let target { writer.value(.object(target)) } else { writer.null() }
        if parts.contains(.request) {
            writer.key("request")
            writer.value(request ?? .null)
        }
        if parts.contains(.apns) {
            writer.key("apns")
            if let apns { Self.write(apns, to: &writer) } else { writer.null() }
        }
        if parts.contains(.media) {
            writer.key("media")
            writer.beginArray()
            for item in media { item.write(to: &writer) }
            writer.endArray()
        }
        if parts.contains(.diagnostics) {
            writer.key("diagnostics")
            writer.beginArray()
            for diagnostic in diagnostics { diagnostic.write(to: &writer) }
            writer.endArray()
        }
        writer.key("timings")
        writer.beginObject()
        writer.member("media_ms", timings.mediaMilliseconds)
        writer.member("total_ms", timings.totalMilliseconds)
        writer.endObject()
        writer.endObject()
    }

    /// The `apns` member: the headers, the payload and its size against its limit.
    private static func write(_ apns: APNsRequest, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("headers")
        writer.beginObject()
        // A header repeated (none is today) keeps its first place and its last value, as a JSON object does.
        var headers = JSONObject()
        for header in apns.headers { headers[header.name] = .string(header.value) }
        for (name, value) in headers {
            writer.key(text: name)
            writer.value(value)
        }
        writer.endObject()
        writer.key("payload")
        writer.value(apns.payload)
        writer.member("bytes", apns.byteCount)
        writer.member("limit", apns.byteLimit)
        writer.endObject()
    }
}

extension MediaResult {
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("pointer", pointer)
        writer.member("source", source)
        writer.member("variant", variant)
        writer.member("platform", platform.rawValue)
        writer.member("status", status.rawValue)
        if let published {
            writer.member("cached_url", published.publicURL)
            if let size = published.size {
                writer.member("width", size.width)
                writer.member("height", size.height)
            }
            if let source = published.sourceSize {
                writer.member("source_width", source.width)
                writer.member("source_height", source.height)
            }
            writer.member("bytes", published.bytes)
            writer.member("format", published.format.rawValue)
            if let score = published.score {
                writer.key("score")
                writer.number(text: score.decimalString(fractionDigits: 1))
            }
        }
        writer.member("ms", milliseconds)
        // A reference that was not fetched on purpose has no error.
        if let errorCode {
            writer.key("error")
            writer.beginObject()
            writer.member("code", errorCode.rawValue)
            writer.member("message", errorMessage ?? errorCode.rawValue)
            writer.endObject()
        }
        writer.endObject()
    }
}

extension Diagnostic {
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("severity", severity.rawValue)
        writer.member("pointer", pointer)
        writer.member("code", code)
        writer.member("message", message)
        if let fix { writer.member("fix", fix) }
        writer.endObject()
    }
}
