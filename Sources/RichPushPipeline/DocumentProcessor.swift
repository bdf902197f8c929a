import Foundation

/// Turns one input document into its one ``ResultLine``, with the bookkeeping every front end needs: the
/// document counted in flight while it runs, and each finished job recorded in the metrics and handed to the
/// job log. `process` (through ``LineProcessor``), `serve`, `consume` and `validate` all go through it.
///
/// Costs what ``Enricher/enrich(document:line:deadline:)`` costs, plus two short metric critical sections per
/// document, one per job, and one serialization of the line.
package struct DocumentProcessor: Sendable {
    package let enricher: Enricher
    /// Where documents and jobs are counted; nil counts nothing (`validate`).
    package let metrics: JobMetrics?
    /// Called once per finished job, after its metrics, on the task that ran the document (so task-local context,
    /// such as the stream entry being handled, is still set): the CLI writes its per-job log line here.
    package let jobFinished: @Sendable (JobResult) -> Void

    package init(
        enricher: Enricher, metrics: JobMetrics? = nil, jobFinished: @escaping @Sendable (JobResult) -> Void = { _ in }
    ) {
        self.enricher = enricher
        self.metrics = metrics
        self.jobFinished = jobFinished
    }

    /// Enriches `document` (any input shape; numbered `line` when the input has lines) and returns its result
    /// line. Never throws: a document that cannot be read gives a rejected line.
    package func resultLine(for document: Data, line: Int? = nil) async -> ResultLine {
        metrics?.documentStarted()
        defer { metrics?.documentFinished() }
        let results = await enricher.enrich(document: document, line: line)
        for result in results {
            metrics?.record(result)
            jobFinished(result)
        }
        return ResultLine(results: results, line: line, parts: enricher.configuration.resultParts)
    }
}
