
extension RedisStreamConsumer {
    /// The group's pending count and lag, summed over the streams: `XPENDING <stream> <group>` and
    /// `XINFO GROUPS <stream>` for each, pipelined in one round trip on the writer connection (the reader is blocked
    /// in `XREADGROUP`). Valid while running; throws when Redis cannot be reached or a group does not exist (yet, or
    /// again after a restart). The lag is nil when any stream's is unknown.
    package func backlog() async throws(QueueError) -> StreamBacklog {
        let streams = configuration.streams
        let replies = try await writer.perform(streams.flatMap { stream in
            [RedisCommand("XPENDING", stream, configuration.group), RedisCommand("XINFO", "GROUPS", stream)]
        })
        guard replies.count == 2 * streams.count else {
            throw .unexpectedReply(command: "XPENDING", reply: "\(replies.count) replies")
        }
        var total = StreamBacklog(pending: 0, lag: 0)
        for (index, stream) in streams.enumerated() {
            let (summary, groups) = (replies[2 * index], replies[2 * index + 1])
            if let message = summary.errorMessage { throw .command("XPENDING \(stream): \(message)") }
            if let message = groups.errorMessage { throw .command("XINFO GROUPS \(stream): \(message)") }
            guard let fields = summary.elements, case .integer(let pending)? = fields.first else {
                throw .unexpectedReply(command: "XPENDING", reply: summary.description)
            }
            total.pending += Int(pending)
            total.lag = lag(ofGroupIn: groups).flatMap { lag in total.lag.map { $0 + lag } }
        }
        return total
    }

    /// Our group's `lag` in an `XINFO GROUPS` reply: one flat field/value array per group (RESP2).
    private func lag(ofGroupIn reply: RedisReply) -> Int? {
        for group in reply.elements ?? [] {
            let fields = group.elements ?? []
            var values: [String: RedisReply] = [:]
            for index in stride(from: 0, to: fields.count - 1, by: 2) {
                if let name = fields[index].text { values[name] = fields[index + 1] }
            }
            guard values["name"]?.text == configuration.group else { continue }
            if case .integer(let lag)? = values["lag"] { return Int(lag) }
            return nil
        }
        return nil
    }
}
