import CHiredis
import Foundation
import RichPushCore

/// A blocking hiredis connection. Not thread-safe: ``RedisSession`` confines it to one serial queue.
///
/// After any I/O or protocol error the hiredis context is unusable, so it is freed and the next call reconnects.
final class RedisConnection {
    let endpoint: RedisEndpoint
    private let timeout: Duration
    private var context: UnsafeMutablePointer<redisContext>?
    private(set) var roundTrips = 0
    private(set) var replies = 0
    private(set) var connects = 0

    init(endpoint: RedisEndpoint, timeout: Duration) {
        self.endpoint = endpoint
        self.timeout = timeout
    }

    deinit { close() }

    var isConnected: Bool { context != nil }

    func close() {
        if let context { redisFree(context) }
        context = nil
    }

    /// Opens the socket, authenticates and selects the database in one pipelined round trip, then PINGs.
    /// Throws `.authentication` for refused credentials, `.connection` for network failures.
    func connect() throws(QueueError) {
        _ = Self.ignoreBrokenPipes
        close()
        let where_ = "\(endpoint.host):\(endpoint.port)"
        guard let context = redisConnectWithTimeout(endpoint.host, Int32(endpoint.port), Self.timeval(timeout)) else {
            throw .connection(reason: "\(where_): out of memory creating the hiredis context")
        }
        if context.pointee.err != 0 {
            let message = Self.errorString(context)
            redisFree(context)
            throw .connection(reason: "\(where_): \(message)")
        }
        self.context = context
        _ = redisSetTimeout(context, Self.timeval(timeout))

        var handshake: [RedisCommand] = []
        if let password = endpoint.password {
            if let username = endpoint.username {
                handshake.append(RedisCommand("AUTH", username, password))
            } else {
                handshake.append(RedisCommand("AUTH", password))
            }
        }
        if endpoint.database != 0 { handshake.append(RedisCommand("SELECT", String(endpoint.database))) }
        handshake.append(RedisCommand("PING"))
        let answers = try pipeline(handshake)
        for (command, answer) in zip(handshake, answers) {
            guard let message = answer.errorMessage else { continue }
            close()
            let prefix = answer.errorPrefix ?? ""
            if command.name == "AUTH" || prefix == "NOAUTH" || prefix == "WRONGPASS" || prefix == "NOPERM" {
                throw .authentication(endpoint: endpoint.description, reason: message)
            }
            if prefix == "LOADING" || prefix == "BUSY" || prefix == "MASTERDOWN" {
                throw .connection(reason: "\(where_): \(message)")
            }
            throw .command("\(command.name): \(message)")
        }
        connects += 1
    }

    /// Sends every command, then reads every reply: one network round trip for the whole batch.
    /// Error replies come back as `.error`; only transport failures throw.
    func pipeline(_ commands: [RedisCommand]) throws(QueueError) -> [RedisReply] {
        if commands.isEmpty { return [] }
        if context == nil { try connect() }
        guard let context else { throw .connection(reason: "not connected") }
        for command in commands {
            if Self.append(command, to: context) != REDIS_OK {
                let message = Self.errorString(context)
                close()
                throw .connection(reason: "\(endpoint.host):\(endpoint.port): \(message)")
            }
        }
        roundTrips += 1
        var answers: [RedisReply] = []
        answers.reserveCapacity(commands.count)
        for _ in commands {
            var raw: UnsafeMutableRawPointer?
            replies += 1
            guard redisGetReply(context, &raw) == REDIS_OK, let raw else {
                let message = Self.errorString(context)
                close()
                throw .connection(reason: "\(endpoint.host):\(endpoint.port): \(message)")
            }
            let reply = raw.assumingMemoryBound(to: redisReply.self)
            answers.append(Self.convert(reply))
            freeReplyObject(raw)
        }
        return answers
    }

    /// Sets the socket read/write timeout, e.g. longer than `BLOCK` for `XREADGROUP`.
    func setTimeout(_ duration: Duration) {
        if let context { _ = redisSetTimeout(context, Self.timeval(duration)) }
    }

    /// hiredis 0.14 writes with plain `write(2)`: a server that vanished mid-pipeline would raise SIGPIPE and kill
    /// the process instead of returning EPIPE. Ignoring SIGPIPE is what hiredis's own documentation recommends;
    /// it is process-wide, done once, on the first connect.
    private static let ignoreBrokenPipes: Void = {
        _ = signal(SIGPIPE, SIG_IGN)
    }()

    private static func append(_ command: RedisCommand, to context: UnsafeMutablePointer<redisContext>) -> Int32 {
        // hiredis copies the command into its output buffer, so the pointer only lives for this call.
        return command.withEncodedBytes { encoded in
            redisAppendFormattedCommand(context, encoded.baseAddress?.assumingMemoryBound(to: CChar.self), encoded.count)
        }
    }

    private static func convert(_ reply: UnsafeMutablePointer<redisReply>) -> RedisReply {
        let value = reply.pointee
        switch value.type {
        case REDIS_REPLY_STRING:
            return .string(value.str.map { Data(bytes: $0, count: value.len) } ?? Data())
        case REDIS_REPLY_STATUS:
            return .status(value.str.map { String(decoding: Data(bytes: $0, count: value.len), as: UTF8.self) } ?? "")
        case REDIS_REPLY_ERROR:
            return .error(value.str.map { String(decoding: Data(bytes: $0, count: value.len), as: UTF8.self) } ?? "")
        case REDIS_REPLY_INTEGER:
            return .integer(value.integer)
        case REDIS_REPLY_ARRAY:
            var elements: [RedisReply] = []
            elements.reserveCapacity(value.elements)
            for index in 0..<value.elements {
                if let element = value.element[index] { elements.append(convert(element)) } else { elements.append(.null) }
            }
            return .array(elements)
        default:
            return .null
        }
    }

    private static func errorString(_ context: UnsafeMutablePointer<redisContext>) -> String {
        let text = withUnsafeBytes(of: context.pointee.errstr) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return text.isEmpty ? "connection closed (hiredis error \(context.pointee.err))" : text
    }

    private static func timeval(_ duration: Duration) -> Glibc.timeval {
        let milliseconds = max(duration.roundedUpMilliseconds, 1)
        return Glibc.timeval(tv_sec: Int(milliseconds / 1_000), tv_usec: Int((milliseconds % 1_000) * 1_000))
    }
}
