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

    /// `XREADGROUP GROUP g c COUNT n BLOCK ms STREAMS s1 s2 … > > …`: one read for every stream, each asked for
    /// its share of the room (so a page still bounds what waits in the buffer).
    private func readNewEntries(
        count: Int,
        blockingFor wait: Duration,
        into buffer: AsyncQueue<StreamEntry>
    ) async throws(QueueError) -> ReadStep {
        let block = max(wait, .milliseconds(1))
        let streams = configuration.streams
        let share = max(1, (count + streams.count - 1) / streams.count)
        let command = RedisCommand(
            ["XREADGROUP", "GROUP", configuration.group, configuration.consumer,
             "COUNT", String(share), "BLOCK", String(block.roundedUpMilliseconds), "STREAMS"]
                + streams + Array(repeating: ">", count: streams.count)
        )
        let reply = try await reader.perform(command, extraTimeout: block)
        if let step = try await handleErrorReply(reply, command: "XREADGROUP") { return step }
        let entries = try StreamEntry.readGroupReply(reply)
        for entry in entries { track(entry.key) }
        buffer.append(contentsOf: entries)
        return .proceed
    }

    /// Claims entries pending longer than `claimIdle` on any consumer (except our own unfinished ones), stream by
    /// stream, each in its own group: `XPENDING … IDLE` for every stream in one round trip gives the delivery counts,
    /// then `XCLAIM … min-idle` for every stream with candidates in another takes them over (skipping any another
    /// consumer claimed in between). Over-delivered entries are dead-lettered, the rest processed.
    /// Returns whether a full page was found on some stream (more may be waiting).
    private func claimIdleEntries(room: Int, into buffer: AsyncQueue<StreamEntry>) async throws(QueueError) -> Bool {
        let minimumIdle = String(configuration.claimIdle.roundedUpMilliseconds)
        let streams = configuration.streams
        let ownUnfinished = state.withLock { $0.unacknowledged }
        let pageSize = room + ownUnfinished.count
        let pendingReplies = try await reader.perform(streams.map {
            RedisCommand("XPENDING", $0, configuration.group, "IDLE", minimumIdle, "-", "+", String(pageSize))
        })
        var fullPage = false
        var retryRoom = room
        var chosenByStream: [(stream: String, entries: [PendingEntry])] = []
        for (stream, pendingReply) in zip(streams, pendingReplies) {
            if try await handleErrorReply(pendingReply, command: "XPENDING \(stream)") != nil { return false }
            let pending = try PendingEntry.list(from: pendingReply, stream: stream)
            fullPage = fullPage || (pending.count >= pageSize && pageSize > 0)
            let candidates = pending.filter { !ownUnfinished.contains($0.key) }
            let dead = candidates.filter { $0.deliveries >= configuration.maximumDeliveries }
            let retry = candidates.filter { $0.deliveries < configuration.maximumDeliveries }.prefix(retryRoom)
            retryRoom -= retry.count
            if !dead.isEmpty || !retry.isEmpty { chosenByStream.append((stream, dead + retry)) }
        }
        if chosenByStream.isEmpty { return false }

        let claimReplies = try await reader.perform(chosenByStream.map { stream, entries in
            RedisCommand(["XCLAIM", stream, configuration.group, configuration.consumer, minimumIdle] + entries.map(\.id))
        })
        var toRun: [StreamEntry] = []
        var claimedCount = 0
        for ((stream, chosen), claimReply) in zip(chosenByStream, claimReplies) {
            if try await handleErrorReply(claimReply, command: "XCLAIM \(stream)") != nil { return false }
            let claimed = try StreamEntry.list(from: claimReply, command: "XCLAIM", stream: stream)
            claimedCount += claimed.count
            let byID = Dictionary(chosen.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            for entry in claimed {
                guard let info = byID[entry.id] else { continue }
                track(entry.key)
                if info.deliveries >= configuration.maximumDeliveries {
                    deadLetter(entry, info: info)
                } else {
                    state.withLock { $0.summary.claimed += 1 }
                    toRun.append(entry)
                }
            }
        }
        buffer.append(contentsOf: toRun)
        if claimedCount > 0 {
            log(.info, "claimed", "claimed \(claimedCount) entr\(claimedCount == 1 ? "y" : "ies") idle for \(configuration.claimIdle) or more")
        }
        return fullPage
    }

    /// nil for a normal reply. NOGROUP (the server lost its data) and UNBLOCKED (a stream was deleted while this
    /// read waited on it) recreate the groups; transient server states retry; a cluster redirect and anything else
    /// are fatal.
    private func handleErrorReply(_ reply: RedisReply, command: String) async throws(QueueError) -> ReadStep? {
        guard let message = reply.errorMessage else { return nil }
        let prefix = reply.errorPrefix ?? ""
        if prefix == "NOGROUP" || prefix == "UNBLOCKED" {
            // The server came back without its data (no persistence), or a stream was deleted under a blocked
            // read: recreate the groups (an existing one answers BUSYGROUP) and read again rather than stop every
            // consumer.
            log(.warning, "group_recreated", "\(command): \(message); recreating the group")
            try checkGroupsCreated(try await reader.perform(createGroupCommands))
            return .proceed
        }
        if RedisStreamConsumer.transientErrorPrefixes.contains(prefix) { return .retry("\(command): \(message)") }
        if prefix == "NOAUTH" || prefix == "WRONGPASS" {
            throw .authentication(endpoint: configuration.endpoint.description, reason: message)
        }
        if let redirect = QueueError.clusterRedirect(in: reply, command: command) { throw redirect }
        throw .command("\(command) \(configuration.streams.joined(separator: " ")): \(message)")
    }

    /// Runs one buffered entry: waits for a job slot, then a child task calls the handler and queues the result.
    private func launch(_ entry: StreamEntry, into group: inout DiscardingTaskGroup) async {
        guard let fields = entry.fields else {
            // Deleted while pending: nothing to run, but it must leave the pending list.
            completions.append(.acknowledgeOnly(entry: entry.key))
            return
        }
        guard let job = entry.value(of: "job") else {
            let names = fields.map { String(decoding: $0.name, as: UTF8.self) }
            let result = MissingJobFieldResult.json(entryID: entry.id, stream: entry.stream, fieldNames: names)
            configuration.log.log(.warning, "job", [
                ("id", .null), ("entry_id", .string(entry.id)), ("status", .string("rejected")),
                ("code", .string(MissingJobFieldResult.code)), ("consumer", .string(configuration.consumer)),
            ])
            configuration.missingJobField?(entry.id)
            completions.append(.result(entry: entry.key, jobID: "", resultJSON: result, missingJobField: true))
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
                entry: entry.key, jobID: outcome.jobID ?? "", resultJSON: outcome.resultJSON, missingJobField: false
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
            Data("stream".utf8), Data(entry.stream.utf8),
            Data("deliveries".utf8), Data(String(info.deliveries).utf8),
            Data("last_consumer".utf8), Data(info.consumer.utf8),
            Data("error".utf8), Data(error.utf8),
        ]
        for field in entry.fields ?? [] {
            fields.append(field.name)
            fields.append(field.value)
        }
        log(.warning, "dead_lettered", "dead-lettering \(entry.key): \(error)")
        completions.append(.deadLetter(entry: entry.key, fields: fields))
    }

    private func track(_ entry: StreamEntryKey) {
        state.withLock { _ = $0.unacknowledged.insert(entry) }
    }
}
