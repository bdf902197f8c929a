import Foundation
import RichPushCore
import Synchronization

extension RedisStreamConsumer {
    /// Results written per `MULTI`/`EXEC`; bounds one request's size (each result is a JSON line).
    private static let maximumWriteBatch = 256

    /// Writes completions until the queue is finished and empty. Never drops one: a failed batch is retried after
    /// reconnecting, merged with whatever finished meanwhile. Gives up only when a `stop()` is older than
    /// `shutdownTimeout` (the entries stay pending and will be claimed) or on a fatal command error.
    ///
    /// Nor writes one twice: when a batch's answer was lost with the connection, Redis may have applied it (a
    /// transaction is all or nothing), so before the retry ``keepingOwned(_:)`` drops every completion whose entry
    /// is no longer pending on this consumer: its result is already written, or another consumer claimed it and
    /// answers it.
    func writeLoop() async -> QueueError? {
        var pending: [Completion] = []
        var backoff = Backoff()
        var answerLost = false
        while true {
            if pending.isEmpty {
                guard let next = await completions.nextBatch() else { return nil }
                pending = next
            } else {
                pending += completions.takeAvailable()
            }
            do throws(QueueError) {
                if answerLost {
                    pending = try await keepingOwned(pending)
                    answerLost = false
                    if pending.isEmpty { continue }
                }
                let batch = Array(pending.prefix(Self.maximumWriteBatch))
                let replies = try await writer.perform(transaction(for: batch))
                try checkTransaction(replies, batchSize: batch.count)
                pending.removeFirst(batch.count)
                recordWritten(batch)
                backoff.reset()
            } catch {
                switch error {
                case .connection(let reason), .authentication(_, let reason), .tlsHandshake(_, let reason):
                    answerLost = true
                    if let expired = shutdownExpired() {
                        let left = pending.count + completions.takeAvailable().count
                        return .shutdownIncomplete(
                            unacknowledged: left, reason: "\(reason); gave up \(expired) after the shutdown timeout"
                        )
                    }
                    if Task.isCancelled {
                        // A cancelled task cannot sleep between retries; give up now rather than spin.
                        let left = pending.count + completions.takeAvailable().count
                        return .shutdownIncomplete(unacknowledged: left, reason: "\(reason); run() was cancelled")
                    }
                    log(.warning, "redis_retry", "writer: \(reason); retrying \(pending.count) result(s) in \(backoff.next)")
                    await writer.disconnect()
                    await backoff.sleep()
                default:
                    fail(error)
                    return error
                }
            }
        }
    }

    /// The completions whose entries are still pending on this consumer (`XPENDING <stream> <group> <id> <id> 1
    /// <consumer>`, one per entry, in one round trip). The others were acknowledged by a transaction whose answer was
    /// lost, or claimed by another consumer; either way the answer is no longer this consumer's to give. A stream
    /// whose group is gone (the server lost its data) keeps its completions: nothing can tell, and writing is the
    /// safe side.
    func keepingOwned(_ completions: [Completion]) async throws(QueueError) -> [Completion] {
        if completions.isEmpty { return [] }
        let replies = try await writer.perform(completions.map { completion in
            let entry = completion.entry
            return RedisCommand("XPENDING", entry.stream, configuration.group, entry.id, entry.id, "1", configuration.consumer)
        })
        var kept: [Completion] = []
        var dropped: [Completion] = []
        for (completion, reply) in zip(completions, replies) {
            if reply.errorMessage != nil || reply.elements?.isEmpty == false {
                kept.append(completion)
            } else {
                dropped.append(completion)
            }
        }
        if !dropped.isEmpty {
            state.withLock { state in
                for completion in dropped { state.unacknowledged.remove(completion.entry) }
                state.summary.alreadyAnswered += dropped.count
            }
            log(.info, "already_answered", "\(dropped.count) result(s) not written again: their entries were "
                + "acknowledged by a write whose answer was lost, or claimed by another consumer")
        }
        return kept
    }

    /// `MULTI`, one `XADD` per result or dead letter, one `XACK` per stream for its entries, `EXEC`: one round trip,
    /// and Redis applies it all or (if the connection drops before `EXEC`) nothing.
    private func transaction(for batch: [Completion]) -> [RedisCommand] {
        var commands = [RedisCommand("MULTI")]
        let maximumLength = String(configuration.resultsMaximumLength)
        var acknowledged: [String: [String]] = [:]
        for completion in batch {
            acknowledged[completion.entry.stream, default: []].append(completion.entry.id)
            switch completion {
            case .result(let entry, let jobID, let resultJSON, _):
                var add = RedisCommand(
                    "XADD", configuration.resultsStream, "MAXLEN", "~", maximumLength, "*", "job_id", jobID,
                    "entry_id", entry.id, "stream", entry.stream, "result")
                add.append(resultJSON)
                commands.append(add)
            case .deadLetter(_, let fields):
                var add = RedisCommand("XADD", configuration.deadLetterStream, "*")
                for field in fields { add.append(field) }
                commands.append(add)
            case .acknowledgeOnly:
                break
            }
        }
        for stream in configuration.streams {
            guard let ids = acknowledged[stream] else { continue }
            commands.append(RedisCommand(["XACK", stream, configuration.group] + ids))
        }
        commands.append(RedisCommand("EXEC"))
        return commands
    }

    /// Throws `.connection` for transient server states (retry) and `.command` for real failures.
    private func checkTransaction(_ replies: [RedisReply], batchSize: Int) throws(QueueError) {
        for reply in replies.dropLast() {
            guard let message = reply.errorMessage else { continue }
            if RedisStreamConsumer.transientErrorPrefixes.contains(reply.errorPrefix ?? "") {
                throw .connection(reason: message)
            }
            if reply.errorPrefix == "NOAUTH" || reply.errorPrefix == "WRONGPASS" {
                throw .authentication(endpoint: configuration.endpoint.description, reason: message)
            }
            if let redirect = QueueError.clusterRedirect(in: reply, command: "XADD/XACK") { throw redirect }
            throw .command("MULTI/XADD/XACK: \(message)")
        }
        guard let exec = replies.last else { throw .unexpectedReply(command: "EXEC", reply: "no reply") }
        if let message = exec.errorMessage {
            if RedisStreamConsumer.transientErrorPrefixes.contains(exec.errorPrefix ?? "") {
                throw .connection(reason: message)
            }
            if let redirect = QueueError.clusterRedirect(in: exec, command: "EXEC") { throw redirect }
            throw .command("EXEC: \(message)")
        }
        guard let results = exec.elements else { throw .unexpectedReply(command: "EXEC", reply: exec.description) }
        if let failed = results.first(where: { $0.errorMessage != nil }) {
            // Types were checked at start-up, so this means someone replaced a key while we ran.
            throw .command("XADD/XACK inside EXEC: \(failed.errorMessage ?? "")")
        }
    }

    private func recordWritten(_ batch: [Completion]) {
        state.withLock { state in
            for completion in batch {
                state.unacknowledged.remove(completion.entry)
                switch completion {
                case .result(_, _, _, let missingJobField):
                    state.summary.resultsWritten += 1
                    if missingJobField { state.summary.missingJobField += 1 }
                case .deadLetter:
                    state.summary.deadLettered += 1
                case .acknowledgeOnly:
                    break
                }
            }
        }
    }

    /// How long ago the shutdown timeout expired, or nil while there is still time (or no stop was requested).
    private func shutdownExpired() -> Duration? {
        guard let requested = state.withLock({ $0.stopRequestedAt }) else { return nil }
        let overdue = ContinuousClock.now - (requested + configuration.shutdownTimeout)
        return overdue >= .zero ? overdue : nil
    }
}
