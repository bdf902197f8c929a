import Foundation

/// What the injected handler returns for one job document.
public struct QueueJobOutcome: Sendable, Hashable {
    /// The exact result line, as `richpush process` prints it (one JSON object, no trailing newline needed).
    public var resultJSON: Data
    /// The job's id if the handler could read one; written as the result entry's `job_id` field ("" when nil).
    public var jobID: String?

    public init(resultJSON: Data, jobID: String? = nil) {
        self.resultJSON = resultJSON
        self.jobID = jobID
    }
}
