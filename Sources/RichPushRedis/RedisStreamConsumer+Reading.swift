import Foundation
import RichPushCore
import Synchronization

extension RedisStreamConsumer {
    /// A transient failure the reader recovers from by pausing and reconnecting.
    private enum ReadStep {
        case proceed
        case retry(String)
    }

    /// Starts jobs from the prefetch buffer as slots free up, while a child task reads and claims into the buffer.
    /// Returns after the reader stopped, the buffer drained and every job finished (their completions are queued
    /// for the writer). Returns the fatal error, if any.
    func readLoop() async -> QueueError? {
        // Entries read (or claimed) and not started yet: prefetching starts the next entry at once when a slot frees
        // up, and refilling only below half of a page makes each read fetch several entries. At most a page waits,
        // so an entry's idle time before it starts stays bounded by about one job's duration.
        let buffer = AsyncQueue<StreamEntry>()
        await withDiscardingTaskGroup { group in
            group.addTask { await self.fetchLoop(into: buffer) }
            while let entry = await buffer.next() {
                await launch(entry, into: &group)
            }
            // Leaving the group body waits for every job task, whose completions reach the writer.
        }
        return state.withLock { $0.fatal }
    }

    /// Claims idle entries and reads new ones into the buffer until stopped, retrying connection losses with
    /// backoff. Always finishes the buffer, so the launcher drains what was read and ends.
    private func fetchLoop(into buffer: AsyncQueue<StreamEntry>) async {
        defer { buffer.finish() }
        let claimInterval = max(.milliseconds(50), min(configuration.claimIdle / 2, .seconds(5)))
        var nextClaim = ContinuousClock.now
        var backoff = Backoff()
        while !isStopping {
            if Task.isCancelled {
                stop()
                break
            }
            let page = configuration.entriesPerRead
            let room = page - (await buffer.waitUntilCount(atMost: page / 2))
            if isStopping { break }

            let step: ReadStep
            do throws(QueueError) {
                if ContinuousClock.now >= nextClaim {
                    let claimedFullPage = try await claimIdleEntries(room: room, into: buffer)
                    nextClaim = claimedFullPage ? .now : .now + claimInterval
                    step = .proceed
                } else {
                    let wait = min(configuration.blockTimeout, nextClaim - .now)
                    step = try await readNewEntries(count: room, blockingFor: wait, into: buffer)
                }
            } catch {
                switch error {
                case .connection(let reason):
                    step = .retry(reason)
                case .authentication(_, let reason), .tlsHandshake(_, let reason):
                    // The server may be restarting with its ACLs or certificates not loaded yet; start-up already
                    // proved the credentials and the certificate once.
                    step = .retry(reason)
                default:
                    fail(error)
                    step = .proceed
                }
            }
            switch step {
            case .proceed:
                backoff.reset()
            case .retry(let reason):
                log(.warning, "redis_retry", "reader: \(reason); retrying in \(backoff.next)")
                await reader.disconnect()
                await backoff.sleep()
            }
        }
    }

    /// `XREADGROUP GROUP g c COUNT n BLOCK ms STREAMS s >`, then one task per entry.
    private func readNewEntries(
        count: Int,
        blockingFor wait: Duration,
        into buffer: AsyncQueue<StreamEntry>
    ) async throws(QueueError) -> ReadStep {
        let block = max(wait, .milliseconds(1))
        let command = RedisCommand(
            "XREADGROUP", "GROUP", configuration.group, configuration.consumer,
            "COUNT", String(count), "BLOCK", String(block.roundedUpMilliseconds),
            "STREAMS", configuration.stream, ">"
        )
        let reply = try await reader.perform(command, extraTimeout: block)
        if let step = try await handleErrorReply(reply, command: "XREADGROUP") { return step }
        let entries = try StreamEntry.readGroupReply(reply)
        for entry in entries { track(entry.id) }
        buffer.append(contentsOf: entries)
        return .proceed
    }

    /// Claims entries pending longer than `claimIdle` on any consumer (except our own unfinished ones):
    /// `XPENDING … IDLE` gives their delivery counts, `XCLAIM … min-idle` takes them over (skipping any another
    /// consumer claimed in between). Over-delivered entries are dead-lettered, the rest processed.
    /// Returns whether a full page was found (more may be waiting).
    private func claimIdleEntries(room: Int, into buffer: AsyncQueue<StreamEntry>) async throws(QueueError) -> Bool {
        let minimumIdle = String(configuration.claimIdle.roundedUpMilliseconds)
        let ownUnfinished = state.withLock { $0.unacknowledged }
        let pageSize = room + ownUnfinished.count
        let pendingReply = try await reader.perform(RedisCommand(
            "XPENDING", configuration.stream, configuration.group, "IDLE", minimumIdle, "-", "+", String(pageSize)
        ))
        if try await handleErrorReply(pendingReply, command: "XPENDING") != nil { return false }
        let pending = try PendingEntry.list(from: pendingReply)
        let candidates = pending.filter { !ownUnfinished.contains($0.id) }
        let dead = candidates.filter { $0.deliveries >= configuration.maximumDeliveries }
        let retry = candidates.filter { $0.deliveries < configuration.maximumDeliveries }.prefix(room)
        let chosen = dead + retry
        if chosen.isEmpty { return false }

        let claimReply = try await reader.perform(RedisCommand(
            ["XCLAIM", configuration.stream, configuration.group, configuration.consumer, minimumIdle]
                + chosen.map(\.id)
        ))
        if try await handleErrorReply(claimReply, command: "XCLAIM") != nil { return false }
        let claimed = try StreamEntry.list(from: claimReply, command: "XCLAIM")
        let byID = Dictionary(chosen.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var toRun: [StreamEntry] = []
        for entry in claimed {
            guard let info = byID[entry.id] else { continue }
            track(entry.id)
            if info.deliveries >= configuration.maximumDeliveries {
                deadLetter(entry, info: info)
            } else {
                state.withLock { $0.summary.claimed += 1 }
                toRun.append(entry)
            }
        }
        buffer.append(contentsOf: toRun)
        if !claimed.isEmpty {
            log(.info, "claimed", "claimed \(claimed.count) entr\(claimed.count == 1 ? "y" : "ies") idle for \(configuration.claimIdle) or more")
        }
        return pending.count >= pageSize && pageSize > 0
    }

    /// nil for a normal reply. NOGROUP (the server lost its data) and UNBLOCKED (the stream was deleted while this
    /// read waited on it) recreate the group; transient server states retry; anything else is fatal.
    private func handleErrorReply(_ reply: RedisReply, command: String) async throws(QueueError) -> ReadStep? {
        guard let message = reply.errorMessage else { return nil }
        let prefix = reply.errorPrefix ?? ""
        if prefix == "NOGROUP" || prefix == "UNBLOCKED" {
            // The server came back without its data (no persistence), or the stream was deleted under a blocked
            // read: recreate the group and read again rather than stop every consumer.
            log(.warning, "group_recreated", "\(command): \(message); recreating the group")
            let created = try await reader.perform(createGroupCommand)
            if let failure = created.errorMessage, created.errorPrefix != "BUSYGROUP" {
                throw .command("XGROUP CREATE \(configuration.stream) \(configuration.group): \(failure)")
            }
            return .proceed
        }
        if RedisStreamConsumer.transientErrorPrefixes.contains(prefix) { return .retry("\(command): \(message)") }
        if prefix == "NOAUTH" || prefix == "WRONGPASS" {
            throw .authentication(endpoint: configuration.endpoint.description, reason: message)
        }
        throw .command("\(command) \(configuration.stream): \(message)")
    }

    /// Runs one buffered entry: waits for a job slot, then a child task calls the handler and queues the result.
    private func launch(_ entry: StreamEntry, into group: inout DiscardingTaskGroup) async {
        guard let fields = entry.fields else {
            // Deleted while pending: nothing to run, but it must leave the pending list.
            completions.append(.acknowledgeOnly(entryID: entry.id))
            return
        }
        guard let job = entry.value(of: "job") else {
            let names = fields.map { String(decoding: $0.name, as: UTF8.self) }
            let result = MissingJobFieldResult.json(entryID: entry.id, stream: configuration.stream, fieldNames: names)
            configuration.log.log(.warning, "job", [
                ("id", .null), ("entry_id", .string(entry.id)), ("status", .string("rejected")),
                ("code", .string(MissingJobFieldResult.code)), ("consumer", .string(configuration.consumer)),
            ])
            configuration.missingJobField?(entry.id)
            completions.append(.result(entryID: entry.id, jobID: "", resultJSON: result, missingJobField: true))
            return
        }
        // Only a cancelled consumer stops waiting; the entry then stays pending, for a claim to run it.
        guard (try? await slots.acquire(1)) != nil else { return }
        state.withLock { $0.summary.jobsHandled += 1 }
        let handler = self.handler
        let completions = self.completions
        let slots = self.slots
        group.addTask {
            let outcome = await StreamEntryContext.$entryID.withValue(entry.id) { await handler(job) }
            completions.append(.result(
                entryID: entry.id, jobID: outcome.jobID ?? "", resultJSON: outcome.resultJSON, missingJobField: false
            ))
            slots.release(1)
        }
    }

    private func deadLetter(_ entry: StreamEntry, info: PendingEntry) {
        let error = "delivered \(info.deliveries) times without an acknowledgement (maximum \(configuration.maximumDeliveries)); "
            + "last delivered to consumer \(info.consumer), pending \(info.idle.roundedUpMilliseconds) ms: "
            + "each consumer it was given crashed, stalled or lost its connection before acknowledging it"
        var fields: [Data] = [
            Data("entry_id".utf8), Data(entry.id.utf8),
            Data("stream".utf8), Data(configuration.stream.utf8),
            Data("deliveries".utf8), Data(String(info.deliveries).utf8),
            Data("last_consumer".utf8), Data(info.consumer.utf8),
            Data("error".utf8), Data(error.utf8),
        ]
        for field in entry.fields ?? [] {
            fields.append(field.name)
            fields.append(field.value)
        }
        log(.warning, "dead_lettered", "dead-lettering \(entry.id): \(error)")
        completions.append(.deadLetter(entryID: entry.id, fields: fields))
    }

    private func track(_ entryID: String) {
        state.withLock { _ = $0.unacknowledged.insert(entryID) }
    }
}
