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

    static func text(file: String, results: [JobResult], fetched: Bool) -> String {
        var text = "\(file)\n"
        for result in results {
            var heading = "  job"
            if let id = result.id { heading += " \(id)" }
            if let line = result.line { heading += " (line \(line))" }
            text += "\(heading): \(result.status.rawValue)\n"
            for diagnostic in result.diagnostics {
                let pointer = diagnostic.pointer.isEmpty ? "/" : diagnostic.pointer
                text += "    \(diagnostic.severity.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0))"
                text += "\(pointer): \(diagnostic.message) [\(diagnostic.code)]\n"
            }
            for media in result.media {
                text += "    media   \(media.pointer): \(URLRedaction.redact(media.source))\n"
                if let published = media.published {
                    let size = String(format: "%.1f KB", Double(published.bytes) / 1024)
                    let dimensions = published.size.map { " \($0.width)x\($0.height)" } ?? ""
                    text += "            \(media.status.rawValue)\(dimensions) \(published.format.rawValue)"
                    let score = published.score.map { String(format: " SSIMULACRA2 %.1f", $0) } ?? ""
                    text += " \(size)\(score) in \(media.milliseconds) ms -> \(published.publicURL)\n"
                } else {
                    text += "            \(media.status.rawValue): \(media.errorMessage ?? media.errorCode?.rawValue ?? "")\n"
                }
            }
            if let apns = result.apns {
                let limit = apns.headers.first(where: { $0.name == "apns-push-type" })?.value == "voip" ? 5120 : 4096
                text += "    payload \(apns.byteCount) / \(limit) bytes"
                text += fetched ? "\n" : " (media not fetched: URLs left as written)\n"
                for header in apns.headers { text += "      \(header.name): \(header.value)\n" }
                let pretty = String(decoding: apns.payload.serialized(pretty: true), as: UTF8.self)
                for line in pretty.split(separator: "\n", omittingEmptySubsequences: false) {
                    text += "      \(line)\n"
                }
            }
        }
        return text
    }
}
