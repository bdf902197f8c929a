import Foundation

/// Which entry of which stream: entry ids are unique only within their stream.
struct StreamEntryKey: Sendable, Hashable, CustomStringConvertible {
    var stream: String
    var id: String

    var description: String { "\(stream) \(id)" }
}

/// One entry of a Redis stream as returned by `XREADGROUP`, `XCLAIM` or `XRANGE`.
struct StreamEntry: Sendable, Hashable {
    var stream: String
    var id: String
    /// Field/value pairs in stream order; `nil` when the entry was deleted while pending.
    var fields: [(name: Data, value: Data)]?

    var key: StreamEntryKey { StreamEntryKey(stream: stream, id: id) }

    static func == (left: StreamEntry, right: StreamEntry) -> Bool {
        left.stream == right.stream && left.id == right.id && left.fields?.map(\.name) == right.fields?.map(\.name)
            && left.fields?.map(\.value) == right.fields?.map(\.value)
    }

    func hash(into hasher: inout Hasher) { hasher.combine(key) }

    /// The first value of the named field.
    func value(of name: String) -> Data? {
        let key = Data(name.utf8)
        return fields?.first { $0.name == key }?.value
    }

    /// Parses `[[id, [field, value, …]], …]`, entries of `stream`.
    static func list(from reply: RedisReply, command: String, stream: String) throws(QueueError) -> [StreamEntry] {
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
                entries.append(StreamEntry(stream: stream, id: id, fields: nil))
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
                entries.append(StreamEntry(stream: stream, id: id, fields: fields))
            default:
                throw .unexpectedReply(command: command, reply: item.description)
            }
        }
        return entries
    }

    /// Parses an `XREADGROUP` reply, `[[stream, entries], …]` (one pair per stream with entries) or nil on timeout.
    static func readGroupReply(_ reply: RedisReply) throws(QueueError) -> [StreamEntry] {
        if case .null = reply { return [] }
        guard let streams = reply.elements else { throw .unexpectedReply(command: "XREADGROUP", reply: reply.description) }
        var entries: [StreamEntry] = []
        for stream in streams {
            guard let pair = stream.elements, pair.count == 2, let name = pair[0].text else {
                throw .unexpectedReply(command: "XREADGROUP", reply: stream.description)
            }
            entries += try list(from: pair[1], command: "XREADGROUP", stream: name)
        }
        return entries
    }
}

/// One line of the extended `XPENDING key group IDLE ms - + count` reply.
struct PendingEntry: Sendable, Hashable {
    var stream: String
    var id: String
    var consumer: String
    var idle: Duration
    var deliveries: Int

    var key: StreamEntryKey { StreamEntryKey(stream: stream, id: id) }

    static func list(from reply: RedisReply, stream: String) throws(QueueError) -> [PendingEntry] {
        guard let items = reply.elements else { throw .unexpectedReply(command: "XPENDING", reply: reply.description) }
        var entries: [PendingEntry] = []
        for item in items {
            guard let fields = item.elements, fields.count == 4, let id = fields[0].text, let consumer = fields[1].text,
                  case .integer(let idle) = fields[2], case .integer(let deliveries) = fields[3] else {
                throw .unexpectedReply(command: "XPENDING", reply: item.description)
            }
            entries.append(PendingEntry(stream: stream, id: id, consumer: consumer, idle: .milliseconds(idle), deliveries: Int(deliveries)))
        }
        return entries
    }
}
