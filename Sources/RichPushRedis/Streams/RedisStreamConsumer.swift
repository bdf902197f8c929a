import Foundation
import Synchronization
import RichPushCore

/// Takes jobs from a Redis Stream through a consumer group, runs them through an injected handler, and writes one
/// result per job to a results stream before acknowledging it (at-least-once).
///
/// Cost: two hiredis connections (one blocks in `XREADGROUP`, one writes), each driven from its own serial dispatch
/// queue so Swift's cooperative pool never blocks. Reads are batched (`COUNT`) and all results that finished while
/// the previous write was on the wire go out in one `MULTI`/`XADD…`/`XACK`/`EXEC` round trip, so a busy consumer
/// stays well below two round trips per job.
///
/// Typical use (what `richpush consume` does): build the handler from the same code path as `process` (the
/// pipeline's `DocumentProcessor`, which also counts the document and its jobs in `JobMetrics`), call `stop()` from a
/// SIGTERM `DispatchSource`, and exit 0 when `run()` returns:
/// ```swift
/// let documents = DocumentProcessor(enricher: enricher, metrics: metrics)
/// let consumer = try RedisStreamConsumer(configuration: configuration) { document in
///     let line = await documents.resultLine(for: document)   // the exact line `process` prints
///     return QueueJobOutcome(resultJSON: line.bytes, jobID: line.jobID)
/// }
/// let summary = try await consumer.run()
/// ```
package final class RedisStreamConsumer: Sendable {
    package let configuration: StreamConsumerConfiguration

    let handler: @Sendable (Data) async -> QueueJobOutcome
    let reader: RedisSession
    let writer: RedisSession
    /// Job tasks hand what the writer must record to it here; the writer takes everything queued at once, so a busy
    /// consumer writes many results per round trip without ever waiting to fill a batch.
    let completions = AsyncQueue<Completion>()
    /// The jobs in flight, at most `configuration.concurrency`.
    let slots: AsyncSemaphore
    let state = Mutex(RunState())

    struct RunState {
        var started = false
        var stopRequestedAt: ContinuousClock.Instant?
        var fatal: QueueError?
        /// Entries this consumer owns and has not acknowledged yet; never claimed from ourselves.
        var unacknowledged: Set<StreamEntryKey> = []
        var summary = ConsumerSummary()
    }

    /// Validates the configuration; does not connect (``run()`` does).
    /// - Parameter handler: turns one job document (the entry's `job` field, unparsed) into its result line.
    ///   It must not throw or crash on malformed input: it returns a rejected result instead.
    package init(
        configuration: StreamConsumerConfiguration,
        handler: @escaping @Sendable (Data) async -> QueueJobOutcome
    ) throws(QueueError) {
        try configuration.validate()
        self.configuration = configuration
        self.handler = handler
        reader = RedisSession(endpoint: configuration.endpoint, timeout: configuration.commandTimeout, label: "reader")
        writer = RedisSession(endpoint: configuration.endpoint, timeout: configuration.commandTimeout, label: "writer")
        slots = AsyncSemaphore(capacity: configuration.concurrency)
    }

    /// Runs until ``stop()``: creates the group (`XGROUP CREATE … 0 MKSTREAM`, an existing group is fine), claims
    /// entries idle longer than `claimIdle`, reads new ones with `XREADGROUP … COUNT … BLOCK`, keeps up to
    /// `concurrency` jobs in flight, and for each writes the result (`XADD <results> MAXLEN ~ N * job_id … entry_id …
    /// result …`) and the `XACK` in one pipelined `MULTI`/`EXEC`. Entries already delivered `maximumDeliveries` times
    /// go to the dead-letter stream instead, and are acked.
    ///
    /// Start-up errors (unreachable server, wrong credentials, a key of the wrong type) throw at once. Later
    /// connection losses are retried with backoff (capped at 2 s) while jobs in flight keep running; their results and
    /// acks are kept and written after the reconnect.
    ///
    /// Cancelling the calling task acts like ``stop()``, except that the handler tasks are cancelled too, and results
    /// that cannot be written at once are left pending (they will be claimed) instead of retried.
    package func run() async throws(QueueError) -> ConsumerSummary {
        let alreadyStarted = state.withLock { state in
            defer { state.started = true }
            return state.started
        }
        if alreadyStarted { throw .alreadyRunning }

        try await startUp()
        async let writerFailure = writeLoop()
        let readerFailure = await readLoop()
        completions.finish()
        let writeFailure = await writerFailure

        if let failure = readerFailure ?? writeFailure {
            throw failure
        }
        await removeConsumerIfIdle()
        return await currentSummary()
    }

    /// Stops reading new entries. Jobs in flight finish and get their results and acks, then ``run()`` returns.
    /// Takes effect within `blockTimeout` (the current `XREADGROUP` finishes first). Safe to call more than once.
    package func stop() {
        state.withLock { state in
            if state.stopRequestedAt == nil { state.stopRequestedAt = .now }
        }
    }

    /// Counters so far (also valid while running).
    package func currentSummary() async -> ConsumerSummary {
        let readerCounters = await reader.counters()
        let writerCounters = await writer.counters()
        var summary = state.withLock { $0.summary }
        summary.roundTrips = readerCounters.roundTrips + writerCounters.roundTrips
        summary.replies = readerCounters.replies + writerCounters.replies
        summary.reconnects = max(readerCounters.connects - 1, 0) + max(writerCounters.connects - 1, 0)
        return summary
    }

    var isStopping: Bool {
        state.withLock { $0.stopRequestedAt != nil || $0.fatal != nil }
    }

    func fail(_ error: QueueError) {
        state.withLock { state in
            if state.fatal == nil { state.fatal = error }
        }
        log(.error, "consumer_stopped", "stopping after a fatal error: \(error)")
    }

    func log(_ level: LogLevel, _ event: String, _ message: String) {
        configuration.log.log(level, event, [("consumer", .string(configuration.consumer)), ("message", .string(message))])
    }

    /// A clean stop leaves nothing pending on this consumer, so its name (`hostname-pid` by default, new on every
    /// start) is removed from each stream's group instead of piling up in `XINFO CONSUMERS`. Only where `XPENDING`
    /// shows no entry for it: `XGROUP DELCONSUMER` drops pending entries with the name. Best effort, two round trips.
    private func removeConsumerIfIdle() async {
        let streams = configuration.streams
        do throws(QueueError) {
            let pending = try await writer.perform(streams.map {
                RedisCommand("XPENDING", $0, configuration.group, "-", "+", "1", configuration.consumer)
            })
            let idle = zip(streams, pending).filter { $0.1.elements?.isEmpty == true }.map(\.0)
            if idle.isEmpty { return }
            _ = try await writer.perform(idle.map {
                RedisCommand("XGROUP", "DELCONSUMER", $0, configuration.group, configuration.consumer)
            })
        } catch {
            log(.warning, "consumer_not_removed", "could not remove consumer \(configuration.consumer) from the group: \(error)")
        }
    }

    /// Connects both sessions, checks the key types and creates each stream's group. Every failure here is final.
    private func startUp() async throws(QueueError) {
        try await reader.connect()
        try await writer.connect()
        let keys = configuration.streams + [configuration.resultsStream, configuration.deadLetterStream]
        let commands = keys.map { RedisCommand("TYPE", $0) } + createGroupCommands
        let replies = try await reader.perform(commands)
        for (key, reply) in zip(keys, replies) {
            if let redirect = QueueError.clusterRedirect(in: reply, command: "TYPE \(key)") { throw redirect }
            if let message = reply.errorMessage { throw .command("TYPE \(key): \(message)") }
            guard let type = reply.text else { throw .unexpectedReply(command: "TYPE", reply: reply.description) }
            if type != "none" && type != "stream" { throw .wrongType(key: key, type: type) }
        }
        try checkGroupsCreated(Array(replies.suffix(configuration.streams.count)))
    }

    /// Starting at 0 so that jobs added before the first consumer ever ran are processed too. One per stream.
    var createGroupCommands: [RedisCommand] {
        configuration.streams.map { RedisCommand("XGROUP", "CREATE", $0, configuration.group, "0", "MKSTREAM") }
    }

    /// Throws for any reply to ``createGroupCommands`` but success or `BUSYGROUP` (the group exists).
    func checkGroupsCreated(_ replies: [RedisReply]) throws(QueueError) {
        for (stream, reply) in zip(configuration.streams, replies) {
            guard let message = reply.errorMessage, reply.errorPrefix != "BUSYGROUP" else { continue }
            let command = "XGROUP CREATE \(stream) \(configuration.group)"
            throw QueueError.clusterRedirect(in: reply, command: command) ?? .command("\(command): \(message)")
        }
    }

    /// Errors a server reports while starting, failing over or running a slow script: retry after a pause.
    static let transientErrorPrefixes: Set<String> = ["LOADING", "BUSY", "MASTERDOWN", "TRYAGAIN", "CLUSTERDOWN", "READONLY"]
}
