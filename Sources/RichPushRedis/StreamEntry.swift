import Foundation

/// One entry of a Redis stream as returned by `XREADGROUP`, `XCLAIM` or `XRANGE`.
struct StreamEntry: Sendable, Hashable {
    var id: String
    /// Field/value pairs in stream order; `nil` when the entry was deleted while pending.
    var fields: [(name: Data, value: Data)]?

    static func == (left: StreamEntry, right: StreamEntry) -> Bool {
        left.id == right.id && left.fields?.map(\.name) == right.fields?.map(\.name)
            && left.fields?.map(\.value) == right.fields?.map(\.value)
    }

    func hash(into hasher: inout Hasher) { hasher.combine(id) }

    /// The first value of the named field.
    func value(of name: String) -> Data? {
        let key = Data(name.utf8)
        return fields?.first { $0.name == key }?.value
    }

    /// Parses `[[id, [field, value, …]], …]`.
    static func list(from reply: RedisReply, command: String) throws(QueueError) -> [StreamEntry] {
        if case .null = reply { return [] }
        guard let items = reply.elements else { throw .unexpectedReply(command: command, reply: reply.description) }
        var entries: [StreamEntry] = []
        entries.reserveCapacity(items.count)
        for item in items {
            // Redis 6.2 answered XCLAIM/XAUTOCLAIM with nil for deleted entries; 7.0 leaves them out.
            if case .null = item { continue }
            guard let pair = item.elements, pair.count == 2, let id = pair[0].text else {
                throw .unexpectedReply(command: command, reply: item.description)
            }
            switch pair[1] {
            case .null:
                entries.append(StreamEntry(id: id, fields: nil))
            case .array(let flat):
                var fields: [(name: Data, value: Data)] = []
                var index = 0
                while index + 1 < flat.count {
                    guard let name = flat[index].data, let value = flat[index + 1].data else {
                        throw .unexpectedReply(command: command, reply: item.description)
                    }
                    fields.append((name, value))
                    index += 2
                }
                entries.append(StreamEntry(id: id, fields: fields))
            default:
                throw .unexpectedReply(command: command, reply: item.description)
            }
        }
        return entries
    }

    /// Parses an `XREADGROUP` reply, `[[stream, entries]]` or nil on timeout.
    static func readGroupReply(_ reply: RedisReply) throws(QueueError) -> [StreamEntry] {
        if case .null = reply { return [] }
        guard let streams = reply.elements else { throw .unexpectedReply(command: "XREADGROUP", reply: reply.description) }
        var entries: [StreamEntry] = []
        for stream in streams {
            guard let pair = stream.elements, pair.count == 2 else {
                throw .unexpectedReply(command: "XREADGROUP", reply: stream.description)
            }
            entries += try list(from: pair[1], command: "XREADGROUP")
        }
        return entries
    }
}

/// One line of the extended `XPENDING key group IDLE ms - + count` reply.
struct PendingEntry: Sendable, Hashable {
    var id: String
    var consumer: String
    var idle: Duration
    var deliveries: Int

    static func list(from reply: RedisReply) throws(QueueError) -> [PendingEntry] {
        guard let items = reply.elements else { throw .unexpectedReply(command: "XPENDING", reply: reply.description) }
        var entries: [PendingEntry] = []
        for item in items {
            guard let fields = item.elements, fields.count == 4, let id = fields[0].text, let consumer = fields[1].text,
                  case .integer(let idle) = fields[2], case .integer(let deliveries) = fields[3] else {
                throw .unexpectedReply(command: "XPENDING", reply: item.description)
            }
            entries.append(PendingEntry(id: id, consumer: consumer, idle: .milliseconds(idle), deliveries: Int(deliveries)))
        }
        return entries
    }
}
