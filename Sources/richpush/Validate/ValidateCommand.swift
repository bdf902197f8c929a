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
            let processor = DocumentProcessor(enricher: enricher)
            for document in documents {
                results += await processor.resultLine(for: document.data, line: document.line).results
            }
            if results.contains(where: { ValidationVerdict.fails($0, strict: settings.strict) }) { failed = true }
            allResults += results
            let report = ValidationVerdict.jsonReport(file: path, results: results)
            if htmlPath != nil { previewReports.append(report) }
            if format == "json" {
                reports.append(report)
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
}
