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
    var androidOutcomes: [String: MediaOutcome] = [:]
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
    /// carry the sender's credentials (`validate`).
    public func json(parts: ResultParts) -> JSONValue {
        var object = JSONObject(capacity: 9)
        object.appendUnchecked("id", id.map(JSONValue.string) ?? .null)
        if let line { object.appendUnchecked("line", .number(String(line))) }
        object.appendUnchecked("status", .string(status.rawValue))
        object.appendUnchecked("target", target.map(JSONValue.object) ?? .null)
        if parts.contains(.request) { object.appendUnchecked("request", request ?? .null) }
        if parts.contains(.apns) { object.appendUnchecked("apns", apns.map(Self.json(of:)) ?? .null) }
        if parts.contains(.media) { object.appendUnchecked("media", .array(media.map(\.json))) }
        if parts.contains(.diagnostics) { object.appendUnchecked("diagnostics", .array(diagnostics.map(\.json))) }
        var timings = JSONObject(capacity: 2)
        timings.appendUnchecked("media_ms", .number(String(self.timings.mediaMilliseconds)))
        timings.appendUnchecked("total_ms", .number(String(self.timings.totalMilliseconds)))
        object.appendUnchecked("timings", .object(timings))
        return .object(object)
    }

    /// The `apns` member: the headers, the payload and its size against its limit.
    private static func json(of apns: APNsRequest) -> JSONValue {
        var headers = JSONObject()
        for header in apns.headers { headers[header.name] = .string(header.value) }
        var request = JSONObject(capacity: 4)
        request.appendUnchecked("headers", .object(headers))
        request.appendUnchecked("payload", apns.payload)
        request.appendUnchecked("bytes", .number(String(apns.byteCount)))
        request.appendUnchecked("limit", .number(String(apns.byteLimit)))
        return .object(request)
    }
}

extension MediaResult {
    var json: JSONValue {
        var object = JSONObject(capacity: 15)
        object.appendUnchecked("pointer", .string(pointer))
        object.appendUnchecked("source", .string(source))
        object.appendUnchecked("variant", .string(variant))
        object.appendUnchecked("platform", .string(platform.rawValue))
        object.appendUnchecked("status", .string(status.rawValue))
        if let published {
            object.appendUnchecked("cached_url", .string(published.publicURL))
            if let size = published.size {
                object.appendUnchecked("width", .number(String(size.width)))
                object.appendUnchecked("height", .number(String(size.height)))
            }
            if let source = published.sourceSize {
                object.appendUnchecked("source_width", .number(String(source.width)))
                object.appendUnchecked("source_height", .number(String(source.height)))
            }
            object.appendUnchecked("bytes", .number(String(published.bytes)))
            object.appendUnchecked("format", .string(published.format.rawValue))
            if let score = published.score { object.appendUnchecked("score", .number(score.decimalString(fractionDigits: 1))) }
        }
        object.appendUnchecked("ms", .number(String(milliseconds)))
        // A reference that was not fetched on purpose has no error.
        if let errorCode {
            var error = JSONObject(capacity: 2)
            error.appendUnchecked("code", .string(errorCode.rawValue))
            error.appendUnchecked("message", .string(errorMessage ?? errorCode.rawValue))
            object.appendUnchecked("error", .object(error))
        }
        return .object(object)
    }
}

extension Diagnostic {
    var json: JSONValue {
        var object = JSONObject(capacity: 5)
        object.appendUnchecked("severity", .string(severity.rawValue))
        object.appendUnchecked("pointer", .string(pointer))
        object.appendUnchecked("code", .string(code))
        object.appendUnchecked("message", .string(message))
        if let fix { object.appendUnchecked("fix", .string(fix)) }
        return .object(object)
    }
}
