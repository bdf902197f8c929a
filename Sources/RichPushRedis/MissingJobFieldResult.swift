import Foundation

/// The rejected result written for a stream entry that has no `job` field (the handler never sees it).
package enum MissingJobFieldResult {
    /// The diagnostic code of such a result.
    package static let code = "missing_job_field"

    /// `{"id":null,"status":"rejected","diagnostics":[{"severity":"error","pointer":"","code":"missing_job_field",…}]}`
    static func json(entryID: String, stream: String, fieldNames: [String]) -> Data {
        let listed = fieldNames.isEmpty ? "no fields" : "fields: " + fieldNames.prefix(20).joined(separator: ", ")
        let message = "stream entry \(entryID) in \(stream) has no \"job\" field (\(listed))"
        let text = #"{"id":null,"status":"rejected","diagnostics":[{"severity":"error","pointer":"","code":""# + code + #"","message":"#
            + quoted(message) + "}]}"
        return Data(text.utf8)
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
