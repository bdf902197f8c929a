import Foundation
import RichPushCore
import Synchronization

extension RedisStreamConsumer {
    /// Results written per `MULTI`/`EXEC`; bounds one request's size (each result is a JSON line).
    private static let maximumWriteBatch = 256

    /// Writes completions until the queue is finished and empty. Never drops one: a failed batch is retried after
    /// reconnecting, merged with whatever finished meanwhile. Gives up only when a `stop()` is older than
    /// `shutdownTimeout` (the entries stay pending and will be claimed) or on a fatal command error.
    func writeLoop() async -> QueueError? {
        var pending: [Completion] = []
        var backoff = Backoff()
        while true {
            if pending.isEmpty {
                guard let next = await completions.nextBatch() else { return nil }
                pending = next
            } else {
                pending += completions.takeAvailable()
            }
            let batch = Array(pending.prefix(Self.maximumWriteBatch))
            do throws(QueueError) {
                let replies = try await writer.perform(transaction(for: batch))
                try checkTransaction(replies, batchSize: batch.count)
                pending.removeFirst(batch.count)
                recordWritten(batch)
                backoff.reset()
            } catch {
                switch error {
                case .connection(let reason), .authentication(_, let reason), .tlsHandshake(_, let reason):
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

    /// `MULTI`, one `XADD` per result or dead letter, one `XACK` for every entry, `EXEC`: one round trip, and
    /// Redis applies it all or (if the connection drops before `EXEC`) nothing.
    private func transaction(for batch: [Completion]) -> [RedisCommand] {
        var commands = [RedisCommand("MULTI")]
        let maximumLength = String(configuration.resultsMaximumLength)
        for completion in batch {
            switch completion {
            case .result(let entryID, let jobID, let resultJSON, _):
                var add = RedisCommand(
                    "XADD", configuration.resultsStream, "MAXLEN", "~", maximumLength, "*", "job_id", jobID,
                    "entry_id", entryID, "result")
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
        commands.append(RedisCommand(["XACK", configuration.stream, configuration.group] + batch.map(\.entryID)))
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
            throw .command("MULTI/XADD/XACK: \(message)")
        }
        guard let exec = replies.last else { throw .unexpectedReply(command: "EXEC", reply: "no reply") }
        if let message = exec.errorMessage {
            if RedisStreamConsumer.transientErrorPrefixes.contains(exec.errorPrefix ?? "") {
                throw .connection(reason: message)
            }
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
                state.unacknowledged.remove(completion.entryID)
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
