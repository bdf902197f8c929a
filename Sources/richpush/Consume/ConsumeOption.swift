import RichPush

/// The options of `richpush consume` besides the worker options; the defaults are `StreamConsumerConfiguration`'s.
enum ConsumeOption {
    private static let consumer = StreamConsumerConfiguration(endpoint: RedisEndpoint(host: "127.0.0.1"))

    static let redis = OptionKey(
        "redis", .text("URL"),
        help: "Required: redis://[user:password@]host:port/db, or rediss://… for TLS (see --redis-tls-*).")
    static let stream = OptionKey(
        "stream", .list("NAME"), default: consumer.streams,
        help: "Stream to read jobs from (field 'job'); repeat it to read several at once, each with its own group and claims.")
    static let group = OptionKey("group", .text("NAME"), default: consumer.group, help: "Consumer group.")
    static let consumerName = OptionKey(
        "consumer", .text("NAME"), defaultText: "hostname-pid", help: "This consumer's name.")
    static let resultsStream = OptionKey(
        "results-stream", .text("NAME"), default: consumer.resultsStream, help: "Stream results are added to.")
    static let deadLetterStream = OptionKey(
        "dead-letter-stream", .text("NAME"), default: consumer.deadLetterStream, help: "Stream for entries delivered too often.")
    static let claimIdle = OptionKey(
        "claim-idle", .duration, default: consumer.claimIdle, help: "Claim entries pending this long on another consumer.")
    static let maximumDeliveries = OptionKey(
        "max-deliveries", .integer(in: 1...1000), default: consumer.maximumDeliveries,
        help: "Dead-letter an entry delivered more often than this.")

    static let all: [any AnyOptionKey] = [
        redis, stream, group, consumerName, resultsStream, deadLetterStream, claimIdle, maximumDeliveries, SharedOption.metricsFile,
    ]
}
