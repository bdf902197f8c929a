import Foundation
import RichPushCore
import RichPushPayload

/// Whether a validated job passes, and the JSON report of one file: the rules `validate` and `serve`'s
/// `/v1/validate` and `/v1/preview` share. Pure and cheap (a pass over each job's media and diagnostics).
package enum ValidationVerdict {
    /// Errors always fail; so does anything after which the push would not be shown as written (a story removed,
    /// text cut, media or a link removed: `DiagnosticCode.changesWhatIsShown`), and media that did not render;
    /// other warnings fail when `strict`.
    package static func fails(_ result: JobResult, strict: Bool) -> Bool {
        if result.status == .rejected { return true }
        if result.media.contains(where: { $0.status == .failed || ($0.status == .skipped && $0.errorCode != nil) }) {
            return true
        }
        return result.diagnostics.contains { diagnostic in
            diagnostic.severity == .error || (strict && diagnostic.severity == .warning)
                || DiagnosticCode(rawValue: diagnostic.code).map(DiagnosticCode.changesWhatIsShown.contains) == true
        }
    }

    /// One file's JSON report, as `validate --format json` and `serve`'s `/v1/validate` write it, media URLs
    /// redacted (`MediaURLRedaction`).
    package static func jsonReport(file: String, results: [JobResult]) -> JSONValue {
        var report = JSONObject()
        report["file"] = .string(file)
        // The sender's request keeps its credentials; a report shows what the device gets instead, and its media
        // URLs without their secrets.
        report["results"] = .array(results.map { $0.json(parts: ResultParts.all.subtracting(.request)) })
        let unredacted = JSONValue.object(report)
        return MediaURLRedaction(report: unredacted).redact(unredacted)
    }
}
