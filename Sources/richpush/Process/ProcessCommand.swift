import Foundation
import RichPush

/// `richpush process`: NDJSON jobs in, one NDJSON result per line out.
enum ProcessCommand: Command {
    static let name = "process"
    static let abstract = "Enrich NDJSON jobs (any input shape) and print one result line per input line."
    static let usage = "richpush process [options] [FILE...]   (no FILE or - reads standard input)"
    static let maximumPositionals = Int.max
    static let options = WorkerOption.all + [ProcessOption.unordered, SharedOption.metricsFile]

    static func run(_ options: ParsedOptions) async throws -> Int32 {
        let settings = try WorkerSettings(options)
        try settings.checkPublicBaseURL(requiresExplicit: false)
        settings.logger.started(name, settings.startupFields)
        settings.warnIfPlaceholder()
        let (enricher, fetcher, store) = try await settings.makeEnricher()
        defer { fetcher.shutdown() }
        let reader = LineReader(
            paths: options.positionals, readAhead: settings.concurrency * 2, maximumLineBytes: settings.maximumLineBytes)
        let watcher = SignalWatcher { signalNumber in
            settings.logger.log(.warning, "stopping", [("signal", .number(String(signalNumber)))])
            reader.stop()
        }
        reader.start()
        let logger = settings.logger
        let metrics = JobMetrics(fetcher: fetcher)
        metrics.include(CacheGauges(store: store))
        let processor = LineProcessor(
            documents: DocumentProcessor(enricher: enricher, metrics: metrics, jobFinished: { logger.jobFinished($0) }),
            concurrency: settings.concurrency, ordered: !(try options.value(of: ProcessOption.unordered)))
        let metricsTask = try options.value(of: SharedOption.metricsFile).map { path in
            Task { await MetricsFileWriter(path: path, metrics: metrics).run() }
        }
        let summary = await processor.run(
            reader.lines,
            lineTaken: { reader.consumed() },
            emit: { output, _ in StandardOutput.writeLine(output) })
        metricsTask?.cancel()
        await metricsTask?.value
        try? await store.flushUsage()
        var counts: [(String, JSONValue)] = [("lines", .number(String(summary.lines)))]
        for status in [JobStatus.enriched, .partial, .fallback, .passthrough, .rejected] {
            counts.append((status.rawValue, .number(String(summary.statuses[status] ?? 0))))
        }
        counts.append(("ms", .number(String(summary.milliseconds))))
        counts.append(("stopped_by_signal", .bool(watcher.signalReceived)))
        logger.summary(counts)
        if let failure = reader.failure {
            logger.log(.error, "input", [("message", .string(failure))])
            return 1
        }
        return 0
    }
}
