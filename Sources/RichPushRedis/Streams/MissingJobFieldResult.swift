import Foundation
import RichPushCore

/// The rejected result written for a stream entry that has no `job` field (the handler never sees it).
package enum MissingJobFieldResult {
    /// The diagnostic code of such a result.
    package static let code = "missing_job_field"

    /// `{"id":null,"status":"rejected","diagnostics":[{"severity":"error","pointer":"","code":"missing_job_field",…}]}`
    static func json(entryID: String, stream: String, fieldNames: [String]) -> Data {
        let listed = fieldNames.isEmpty ? "no fields" : "fields: " + fieldNames.prefix(20).joined(separator: ", ")
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.key("id")
        writer.null()
        writer.member("status", "rejected")
        writer.key("diagnostics")
        writer.beginArray()
        writer.beginObject()
        writer.member("severity", "error")
        writer.member("pointer", "")
        writer.member("code", code)
        writer.member("message", "stream entry \(entryID) in \(stream) has no \"job\" field (\(listed))")
        writer.endObject()
        writer.endArray()
        writer.endObject()
        return Data(writer.bytes)
    }
}
