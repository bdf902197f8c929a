import Foundation
import RichPush

/// `richpush consume`: take jobs from a Redis Stream consumer group and write one result per job.
enum ConsumeCommand: Command {
    static let name = "consume"
    static let abstract = "Enrich jobs from a Redis Stream (consumer group), writing results to another stream."
    static let usage = "richpush consume --redis redis://host:6379/0 --public-base-url URL [options]"
    static let options = WorkerOption.all + ConsumeOption.all

    static func run(_ options: ParsedOptions) async throws -> Int32 {
        let settings = try WorkerSettings(options)
        try settings.checkPublicBaseURL(requiresExplicit: true)
        guard let redis = try options.value(of: ConsumeOption.redis) else { throw UsageError.missingArgument("--redis URL") }
        let endpoint = try WorkerSettings.redisEndpoint(redis, option: ConsumeOption.redis.name, tls: settings.redisTLS)
        var configuration = StreamConsumerConfiguration(endpoint: endpoint)
        configuration.concurrency = settings.concurrency
        configuration.streams = try options.value(of: ConsumeOption.stream)
        configuration.group = try options.value(of: ConsumeOption.group)
        if let consumer = try options.value(of: ConsumeOption.consumerName) { configuration.consumer = consumer }
        configuration.resultsStream = try options.value(of: ConsumeOption.resultsStream)
        configuration.deadLetterStream = try options.value(of: ConsumeOption.deadLetterStream)
        configuration.claimIdle = try options.value(of: ConsumeOption.claimIdle)
        configuration.maximumDeliveries = try options.value(of: ConsumeOption.maximumDeliveries)

        configuration.log = settings.logger
        settings.logger.started(name, settings.startupFields + [
            ("redis", .string(URLRedaction.redact(redis))), ("streams", .array(configuration.streams.map { .string($0) })),
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
        let metricsTask = try options.value(of: SharedOption.metricsFile).map { path in
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
            ("round_trips_per_job", .number(summary.roundTripsPerJob.decimalString(fractionDigits: 3))),
            ("stopped_by_signal", .bool(watcher.signalReceived)),
        ]
        logger.summary(fields)
        return 0
    }
}
