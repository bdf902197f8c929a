
extension RedisStreamConsumer {
    /// The group's pending count and lag: `XPENDING <stream> <group>` and `XINFO GROUPS <stream>`, pipelined in one
    /// round trip on the writer connection (the reader is blocked in `XREADGROUP`). Valid while running; throws when
    /// Redis cannot be reached or the group does not exist (yet, or again after a restart).
    public func backlog() async throws(QueueError) -> StreamBacklog {
        let replies = try await writer.perform([
            RedisCommand("XPENDING", configuration.stream, configuration.group),
            RedisCommand("XINFO", "GROUPS", configuration.stream),
        ])
        guard replies.count == 2 else { throw .unexpectedReply(command: "XPENDING", reply: "\(replies.count) replies") }
        if let message = replies[0].errorMessage { throw .command("XPENDING \(configuration.stream): \(message)") }
        if let message = replies[1].errorMessage { throw .command("XINFO GROUPS \(configuration.stream): \(message)") }
        guard let summary = replies[0].elements, case .integer(let pending)? = summary.first else {
            throw .unexpectedReply(command: "XPENDING", reply: replies[0].description)
        }
        return StreamBacklog(pending: Int(pending), lag: lag(ofGroupIn: replies[1]))
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
