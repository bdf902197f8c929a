import Foundation
import RichPush

/// `richpush consume`: take jobs from a Redis Stream consumer group and write one result per job.
enum ConsumeCommand: Command {
    static let name = "consume"
    static let abstract = "Enrich jobs from a Redis Stream (consumer group), writing results to another stream."
    static let usage = "richpush consume --redis redis://host:6379/0 --public-base-url URL [options]"
    static let options = WorkerSettings.options + [
        OptionDefinition("redis", .value, valueName: "URL", help: "redis://[user:password@]host:port/db (no TLS: Debian's hiredis 0.14 has none)."),
        OptionDefinition("stream", .value, valueName: "NAME", help: "Stream to read jobs from (field 'job'). Default richpush:jobs."),
        OptionDefinition("group", .value, valueName: "NAME", help: "Consumer group. Default richpush."),
        OptionDefinition("consumer", .value, valueName: "NAME", help: "This consumer's name. Default hostname-pid."),
        OptionDefinition("results-stream", .value, valueName: "NAME", help: "Stream results are added to. Default richpush:results."),
        OptionDefinition("dead-letter-stream", .value, valueName: "NAME", help: "Stream for entries delivered too often. Default richpush:dead."),
        OptionDefinition("claim-idle", .value, valueName: "DURATION", help: "Claim entries pending this long on another consumer. Default 60s."),
        OptionDefinition("max-deliveries", .value, valueName: "N", help: "Dead-letter an entry delivered more often than this. Default 5."),
        OptionDefinition("metrics-file", .value, valueName: "PATH", help: "Rewrite Prometheus text metrics to PATH every 10 s."),
    ]

    static func run(_ options: ParsedOptions) async throws -> Int32 {
        let settings = try WorkerSettings(options)
        try settings.checkPublicBaseURL(requiresExplicit: true)
        guard let redis = options.string("redis") else { throw UsageError.missingArgument("--redis URL") }
        let endpoint: RedisEndpoint
        do {
            endpoint = try RedisEndpoint(parsing: redis)
        } catch {
            throw UsageError.invalidValue(option: "redis", value: redis, expected: "redis://[user:password@]host:port/db (\(error))")
        }
        var configuration = StreamConsumerConfiguration(endpoint: endpoint)
        configuration.concurrency = settings.concurrency
        if let stream = options.string("stream") { configuration.stream = stream }
        if let group = options.string("group") { configuration.group = group }
        if let consumer = options.string("consumer") { configuration.consumer = consumer }
        if let results = options.string("results-stream") { configuration.resultsStream = results }
        if let dead = options.string("dead-letter-stream") { configuration.deadLetterStream = dead }
        if let idle = try options.duration("claim-idle") { configuration.claimIdle = idle }
        if let deliveries = try options.integer("max-deliveries", range: 1...1000) { configuration.maximumDeliveries = deliveries }

        configuration.log = settings.logger
        settings.logger.started(name, settings.startupFields + [
            ("redis", .string(URLRedaction.redact(redis))), ("stream", .string(configuration.stream)),
            ("group", .string(configuration.group)), ("consumer", .string(configuration.consumer)),
        ])

        let (enricher, fetcher, store) = try await settings.makeEnricher(queueRedis: endpoint)
        defer { fetcher.shutdown() }
        let logger = settings.logger
        let metrics = JobMetrics(fetcher: fetcher)
        metrics.include(CacheGauges(store: store))
        configuration.missingJobField = { _ in metrics.recordRejection(code: MissingJobFieldResult.code) }
        let documents = DocumentProcessor(enricher: enricher, metrics: metrics, jobFinished: { logger.jobFinished($0) })
        let consumer = try RedisStreamConsumer(configuration: configuration) { document in
            let line = await documents.resultLine(for: document)
            return QueueJobOutcome(resultJSON: line.bytes, jobID: line.jobID)
        }
        metrics.include(ConsumerMetrics(consumer: consumer))
        let metricsTask = options.string("metrics-file").map { path in
            Task { await MetricsFileWriter(path: path, metrics: metrics).run() }
        }
        let watcher = SignalWatcher { signalNumber in
            logger.log(.warning, "stopping", [("signal", .number(String(signalNumber)))])
            consumer.stop()
        }
        let summary: ConsumerSummary
        do {
            summary = try await consumer.run()
        } catch {
            metricsTask?.cancel()
            await metricsTask?.value
            throw error
        }
        metricsTask?.cancel()
        await metricsTask?.value
        try? await store.flushUsage()
        let fields: [(String, JSONValue)] = [
            ("jobs", .number(String(summary.jobsHandled))),
            ("results", .number(String(summary.resultsWritten))),
            ("claimed", .number(String(summary.claimed))),
            ("dead_lettered", .number(String(summary.deadLettered))),
            ("reconnects", .number(String(summary.reconnects))),
            ("round_trips", .number(String(summary.roundTrips))),
            ("round_trips_per_job", .number(String(format: "%.3f", summary.roundTripsPerJob))),
            ("stopped_by_signal", .bool(watcher.signalReceived)),
        ]
        logger.summary(fields)
        return 0
    }
}
