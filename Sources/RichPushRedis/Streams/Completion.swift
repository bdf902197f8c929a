import Foundation

/// Something the writer must record in Redis for one job entry: always ends with an `XACK`.
enum Completion: Sendable {
    /// `XADD <results> … job_id entry_id stream result`, then ack.
    case result(entry: StreamEntryKey, jobID: String, resultJSON: Data, missingJobField: Bool)
    /// `XADD <dead letters> … <fields>`, then ack.
    case deadLetter(entry: StreamEntryKey, fields: [Data])
    /// The entry was deleted while pending: nothing to write, only ack.
    case acknowledgeOnly(entry: StreamEntryKey)

    var entry: StreamEntryKey {
        switch self {
        case .result(let entry, _, _, _), .deadLetter(let entry, _), .acknowledgeOnly(let entry): entry
        }
    }
}
