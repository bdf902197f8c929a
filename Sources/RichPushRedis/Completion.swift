import Foundation

/// Something the writer must record in Redis for one job entry: always ends with an `XACK`.
enum Completion: Sendable {
    /// `XADD <results> … job_id entry_id result`, then ack.
    case result(entryID: String, jobID: String, resultJSON: Data, missingJobField: Bool)
    /// `XADD <dead letters> … <fields>`, then ack.
    case deadLetter(entryID: String, fields: [Data])
    /// The entry was deleted while pending: nothing to write, only ack.
    case acknowledgeOnly(entryID: String)

    var entryID: String {
        switch self {
        case .result(let id, _, _, _), .deadLetter(let id, _), .acknowledgeOnly(let id): id
        }
    }
}
