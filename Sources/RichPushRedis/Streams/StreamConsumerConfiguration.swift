import Foundation
import RichPushCore
#if canImport(Glibc)
import Glibc
#endif

/// Everything a ``RedisStreamConsumer`` needs: where Redis is, which streams and group to use, and how hard to work.
package struct StreamConsumerConfiguration: Sendable {
    package var endpoint: RedisEndpoint
    /// The streams jobs are read from, all in one `XREADGROUP`; each entry's `job` field is one job document. Each
    /// stream has its own group of this name and its own pending list, claimed stream by stream.
    package var streams: [String]
    /// The consumer group, created on each stream with `XGROUP CREATE <stream> <group> 0 MKSTREAM` when missing.
    package var group: String
    /// This consumer's name inside the group. Defaults to `hostname-pid`, so a restarted process never mistakes
    /// another's pending entries for its own.
    package var consumer: String
    /// Where one result per job is appended (fields `job_id`, `entry_id`, `result`).
    package var resultsStream: String
    /// Where entries delivered more than ``maximumDeliveries`` times are moved.
    package var deadLetterStream: String
    /// Approximate cap on the results stream (`XADD … MAXLEN ~ N`).
    package var resultsMaximumLength: Int
    /// Jobs processed at once by this consumer.
    package var concurrency: Int
    /// Entries pending on any consumer at least this long are claimed (`XPENDING … IDLE` then `XCLAIM`).
    package var claimIdle: Duration
    /// An entry already delivered this many times is dead-lettered instead of being processed again.
    package var maximumDeliveries: Int
    /// How long one `XREADGROUP … BLOCK` waits for new entries. Also bounds how long `stop()` takes to be noticed.
    package var blockTimeout: Duration
    /// Entries asked for per `XREADGROUP` (`COUNT`), and the most read ahead of the job slots; nil means
    /// `concurrency`, whatever it is set to later (see ``entriesPerRead``).
    package var batchSize: Int?
    /// Socket timeout for connecting and for each command (on top of the `BLOCK` time for reads).
    package var commandTimeout: Duration
    /// After `stop()`, how long to keep retrying results and acknowledgements when Redis is unreachable.
    package var shutdownTimeout: Duration
    /// Receives one event per notable happening: reconnects and retries (warning), claims (info), dead letters
    /// (warning), a fatal error (error). Never receives passwords.
    package var log: any LogSink
    /// Called with the entry id of each entry that has no `job` field (its rejected result is written, and a
    /// warning `job` line logged, by the consumer), so the caller can count it; the handler never sees such entries.
    package var missingJobField: (@Sendable (_ entryID: String) -> Void)?

    package init(
        endpoint: RedisEndpoint,
        streams: [String] = ["richpush:jobs"],
        group: String = "richpush",
        consumer: String? = nil,
        resultsStream: String = "richpush:results",
        deadLetterStream: String = "richpush:dead",
        resultsMaximumLength: Int = 1_000_000,
        concurrency: Int = 16,
        claimIdle: Duration = .seconds(60),
        maximumDeliveries: Int = 5,
        blockTimeout: Duration = .seconds(2),
        batchSize: Int? = nil,
        commandTimeout: Duration = .seconds(10),
        shutdownTimeout: Duration = .seconds(30),
        log: any LogSink = DiscardingLogSink()
    ) {
        self.endpoint = endpoint
        self.streams = streams
        self.group = group
        self.consumer = consumer ?? StreamConsumerConfiguration.defaultConsumerName()
        self.resultsStream = resultsStream
        self.deadLetterStream = deadLetterStream
        self.resultsMaximumLength = resultsMaximumLength
        self.concurrency = concurrency
        self.claimIdle = claimIdle
        self.maximumDeliveries = maximumDeliveries
        self.blockTimeout = blockTimeout
        self.batchSize = batchSize
        self.commandTimeout = commandTimeout
        self.shutdownTimeout = shutdownTimeout
        self.log = log
    }

    /// `batchSize`, or one per job slot. Derived when read, so that setting `concurrency` after `init` (as the CLI
    /// does) also sizes the reads: a stale default of 16 once capped a 64-slot consumer at reads of about 8 entries.
    package var entriesPerRead: Int { batchSize ?? concurrency }

    /// `hostname-pid`, from `gethostname(2)` (no DNS lookup).
    package static func defaultConsumerName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        let host: String
        if gethostname(&buffer, buffer.count - 1) == 0 {
            host = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        } else {
            host = "localhost"
        }
        return "\(host.isEmpty ? "localhost" : host)-\(getpid())"
    }

    func validate() throws(QueueError) {
        func require(_ condition: Bool, _ reason: String) throws(QueueError) {
            if !condition { throw .invalidConfiguration(reason) }
        }
        try require(!streams.isEmpty, "no stream to read jobs from")
        try require(!streams.contains(""), "a stream name is empty")
        try require(Set(streams).count == streams.count, "a stream is named twice")
        try require(!group.isEmpty, "the group name is empty")
        try require(!consumer.isEmpty, "the consumer name is empty")
        try require(!resultsStream.isEmpty, "the results stream name is empty")
        try require(!deadLetterStream.isEmpty, "the dead-letter stream name is empty")
        try require(resultsStream != deadLetterStream && !streams.contains(resultsStream) && !streams.contains(deadLetterStream),
                    "the job, results and dead-letter streams must be different keys")
        try require(resultsMaximumLength >= 1, "resultsMaximumLength must be at least 1")
        try require(concurrency >= 1, "concurrency must be at least 1")
        try require(entriesPerRead >= 1, "batchSize must be at least 1")
        try require(maximumDeliveries >= 1, "maximumDeliveries must be at least 1")
        try require(claimIdle >= .milliseconds(1), "claimIdle must be at least 1 ms")
        try require(blockTimeout >= .milliseconds(1), "blockTimeout must be at least 1 ms (0 would block forever)")
        try require(commandTimeout >= .milliseconds(1), "commandTimeout must be at least 1 ms")
        try require(shutdownTimeout >= .zero, "shutdownTimeout must not be negative")
    }
}
