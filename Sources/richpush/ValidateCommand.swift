import Foundation
import RichPush

/// `richpush validate`: a readable report for story authors, with pointers and fixes.
enum ValidateCommand: Command {
    static let name = "validate"
    static let abstract = "Check payloads (any input shape) and render their media, with a report per file."
    static let usage = "richpush validate [options] FILE..."
    static let maximumPositionals = Int.max
    static let options = WorkerOption.all + ValidateOption.all

    static func run(_ options: ParsedOptions) async throws -> Int32 {
        guard !options.positionals.isEmpty else { throw UsageError.missingArgument("FILE to validate") }
        let format = try options.value(of: SharedOption.format)
        let settings = try WorkerSettings(options)
        try settings.checkPublicBaseURL(requiresExplicit: false)
        settings.warnIfPlaceholder()
        var failed = false
        var reports: [JSONValue] = []
        var allResults: [JobResult] = []
        var previewReports: [JSONValue] = []
        let htmlPath = try options.value(of: ValidateOption.html)

        let fetches = !(try options.value(of: ValidateOption.noFetch))
        var enricher = Enricher(checkingStructureOnly: settings.enricherConfiguration)
        var fetcher: Fetcher?
        var store: (any MediaStore)?
        if fetches {
            let opened = try await settings.makeEnricher()
            (enricher, fetcher, store) = (opened.0, opened.1, opened.2)
        }
        defer { fetcher?.shutdown() }

        for path in options.positionals {
            let documents: [InputDocuments.Document]
            do {
                documents = try InputDocuments.read(path, maximumLineBytes: settings.maximumLineBytes)
            } catch {
                settings.logger.log(.error, "input", [("file", .string(path)), ("message", .string(error.description))])
                failed = true
                continue
            }
            var results: [JobResult] = []
            for document in documents {
                results += await enricher.enrich(document: document.data, line: document.line)
            }
            if results.contains(where: { Self.fails($0, strict: settings.strict) }) { failed = true }
            allResults += results
            if htmlPath != nil { previewReports.append(jsonReport(file: path, results: results)) }
            if format == "json" {
                reports.append(jsonReport(file: path, results: results))
            } else {
                StandardOutput.write(ValidationReport.text(file: path, results: results, fetched: fetches))
            }
        }
        if let htmlPath {
            let valid = !failed
            if !(await PreviewFile.write(reports: previewReports, valid: valid, settings: settings, store: store, to: htmlPath)) {
                failed = true
            }
        }
        try? await store?.flushUsage()
        // The summary ends the report; with --format json it goes to standard error so standard output stays JSON.
        let summary = ValidationReport.summary(allResults)
        if format == "json" {
            StandardOutput.writeLine(JSONValue.array(reports).serialized(pretty: true))
            StandardError.write(summary + "\n")
        } else {
            StandardOutput.write(summary + "\n")
        }
        return failed ? 1 : 0
    }

    /// One file's JSON report, as `validate --format json` and `serve`'s `/v1/validate` write it.
    static func jsonReport(file: String, results: [JobResult]) -> JSONValue {
        var report = JSONObject()
        report["file"] = .string(file)
        // The sender's request keeps its credentials; a report shows what the device gets instead.
        report["results"] = .array(results.map { $0.json(includingRequest: false) })
        return .object(report)
    }

    /// Errors always fail; so does anything after which the push would not be shown as written (a story removed,
    /// text cut, media or a link removed: `DiagnosticCode.changesWhatIsShown`), and media that did not render;
    /// other warnings fail with `--strict`.
    static func fails(_ result: JobResult, strict: Bool) -> Bool {
        if result.status == .rejected { return true }
        if result.media.contains(where: { $0.status == .failed || ($0.status == .skipped && $0.errorCode != nil) }) {
            return true
        }
        return result.diagnostics.contains { diagnostic in
            diagnostic.severity == .error || (strict && diagnostic.severity == .warning)
                || DiagnosticCode(rawValue: diagnostic.code).map(DiagnosticCode.changesWhatIsShown.contains) == true
        }
    }
}
