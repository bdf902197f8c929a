import Foundation
import RichPushCore

/// The one output line of one input document: what `process` prints, `serve` answers and `consume` writes.
///
/// One job gives its own result object; a document holding many jobs (a Pushwoosh request) gives
/// `{line, status, request, jobs: [...]}` with the most severe status and the document's one request, so that every
/// input line still yields exactly one output line.
public struct ResultLine: Sendable {
    /// The line as compact JSON, without a newline.
    public let bytes: Data
    /// The job's status, or the most severe of the document's jobs.
    public let status: JobStatus
    /// The job's id when the document held exactly one job (the results stream's `job_id`); nil otherwise.
    public let jobID: String?
    /// Every job's result, in document order (what `validate` reports on).
    public let results: [JobResult]

    /// Builds the line of `results`, numbered `line` when the input has lines, carrying `parts`. Costs one write of
    /// the results' JSON, with no tree built for the line itself.
    public init(results: [JobResult], line: Int?, parts: ResultParts = .all) {
        self.results = results
        var writer = JSONWriter()
        if results.count == 1, let only = results.first {
            only.write(to: &writer, parts: parts)
            bytes = Data(writer.bytes)
            status = only.status
            jobID = only.id
            return
        }
        let status = results.map(\.status).max() ?? .rejected
        writer.beginObject()
        if let line { writer.member("line", line) }
        writer.member("status", status.rawValue)
        if parts.contains(.request) {
            writer.key("request")
            writer.value(results.first?.request ?? .null)
        }
        writer.key("jobs")
        writer.beginArray()
        for result in results { result.write(to: &writer, parts: parts.subtracting(.request)) }
        writer.endArray()
        writer.endObject()
        bytes = Data(writer.bytes)
        self.status = status
        jobID = nil
    }
}
