import Foundation

/// What the injected handler returns for one job document.
package struct QueueJobOutcome: Sendable, Hashable {
    /// The exact result line, as `richpush process` prints it (one JSON object, no trailing newline needed).
    package var resultJSON: Data
    /// The job's id if the handler could read one; written as the result entry's `job_id` field ("" when nil).
    package var jobID: String?

    package init(resultJSON: Data, jobID: String? = nil) {
        self.resultJSON = resultJSON
        self.jobID = jobID
    }
}
