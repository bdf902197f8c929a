import Foundation
import RichPush

/// The plain-text form of a `validate` report.
enum ValidationReport {
    /// The last line of a report: "N errors, M warnings, K media" over every job, with failed media counted apart.
    static func summary(_ results: [JobResult]) -> String {
        let diagnostics = results.flatMap(\.diagnostics)
        let errors = diagnostics.filter { $0.severity == .error }.count
        let warnings = diagnostics.filter { $0.severity == .warning }.count
        let media = results.flatMap(\.media)
        let failed = media.filter { $0.status == .failed }.count
        func plural(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
        return "summary: \(plural(errors, "error")), \(plural(warnings, "warning")), \(media.count) media"
            + (failed > 0 ? " (\(failed) failed)" : "")
    }

    /// The report of one file. Every line goes through `TerminalText.escaped`, since ids, pointers, messages, URLs
    /// and payload text come from the input and must not reach the terminal as control characters.
    static func text(file: String, results: [JobResult], fetched: Bool) -> String {
        var text = ""
        func add(_ line: String) { text += TerminalText.escaped(line) + "\n" }
        add(file)
        for result in results {
            var heading = "  job"
            if let id = result.id { heading += " \(id)" }
            if let line = result.line { heading += " (line \(line))" }
            add("\(heading): \(result.status.rawValue)")
            for diagnostic in result.diagnostics {
                let pointer = diagnostic.pointer.isEmpty ? "/" : diagnostic.pointer
                add("    \(diagnostic.severity.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0))"
                    + "\(pointer): \(diagnostic.message) [\(diagnostic.code)]")
            }
            for media in result.media {
                // Which phones read the field, and the rendition it gets: an Android field's pointer is into the
                // sender's request, not the APNs payload below.
                add("    media   \(media.pointer) (\(media.platform.rawValue) \(media.variant)): \(URLRedaction.redact(media.source))")
                if let published = media.published {
                    let size = (Double(published.bytes) / 1024).decimalString(fractionDigits: 1) + " KB"
                    let dimensions = published.size.map { " \($0.width)x\($0.height)" } ?? ""
                    let score = published.score.map { " SSIMULACRA2 " + $0.decimalString(fractionDigits: 1) } ?? ""
                    add("            \(media.status.rawValue)\(dimensions) \(published.format.rawValue)"
                        + " \(size)\(score) in \(media.milliseconds) ms -> \(published.publicURL)")
                } else {
                    add("            \(media.status.rawValue): \(media.errorMessage ?? media.errorCode?.rawValue ?? "")")
                }
            }
            if let apns = result.apns {
                add("    payload \(apns.byteCount) / \(apns.byteLimit) bytes" + (fetched ? "" : " (media not fetched: URLs left as written)"))
                for header in apns.headers { add("      \(header.name): \(header.value)") }
                let pretty = String(decoding: apns.payload.serialized(pretty: true), as: UTF8.self)
                for line in pretty.split(separator: "\n", omittingEmptySubsequences: false) {
                    add("      \(line)")
                }
            }
        }
        return text
    }
}
