import CHiredis
import Foundation
import RichPushCore

/// A blocking connection to Redis: the socket (TLS included) is ``RedisSocket``'s, and hiredis's RESP reader
/// (`redisReaderFeed`/`redisReaderGetReply`) parses the replies. Not thread-safe: ``RedisSession`` confines it to
/// one serial queue.
///
/// After any I/O or protocol error the socket and the reader are unusable, so both are dropped and the next call
/// reconnects.
final class RedisConnection {
    let endpoint: RedisEndpoint
    private let timeout: Duration
    private var socket: RedisSocket?
    private var reader: UnsafeMutablePointer<redisReader>?
    /// Made on the first TLS connect and kept for every reconnect: the CAs and the client certificate load once.
    private var tlsContext: TLSClientContext?
    /// Bytes read from the socket before the reader takes them.
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
    private(set) var roundTrips = 0
    private(set) var replies = 0
    private(set) var connects = 0

    init(endpoint: RedisEndpoint, timeout: Duration) {
        self.endpoint = endpoint
        self.timeout = timeout
    }

    deinit {
        close()
        readBuffer.deallocate()
    }

    var isConnected: Bool { socket != nil }

    func close() {
        socket?.close()
        socket = nil
        if let reader { redisReaderFree(reader) }
        reader = nil
    }

    /// Opens the socket (and the TLS session), authenticates and selects the database in one pipelined round trip,
    /// then PINGs. Throws `.authentication` for refused credentials, `.connection` for network failures, and
    /// `.tlsSetup` or `.tlsHandshake` when TLS cannot be set up or the server's answer is refused.
    func connect() throws(QueueError) {
        close()
        if let settings = endpoint.tls, tlsContext == nil { tlsContext = try TLSClientContext(settings: settings) }
        let socket = try RedisSocket.open(host: endpoint.host, port: endpoint.port, timeout: timeout, tls: tlsContext)
        guard let reader = redisReaderCreate() else {
            throw .connection(reason: "\(socket.address): out of memory creating the reply reader")
        }
        self.socket = socket
        self.reader = reader

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
        let answers: [RedisReply]
        do {
            answers = try pipeline(handshake)
        } catch {
            if case .connection = error, socket.serverAskedForMissingClientCertificate {
                throw .tlsHandshake(endpoint: socket.address, reason: RedisSocket.clientCertificateRequired)
            }
            throw error
        }
        for (command, answer) in zip(handshake, answers) {
            guard let message = answer.errorMessage else { continue }
            close()
            let prefix = answer.errorPrefix ?? ""
            if command.name == "AUTH" || prefix == "NOAUTH" || prefix == "WRONGPASS" || prefix == "NOPERM" {
                throw .authentication(endpoint: endpoint.description, reason: message)
            }
            if prefix == "LOADING" || prefix == "BUSY" || prefix == "MASTERDOWN" {
                throw .connection(reason: "\(socket.address): \(message)")
            }
            throw .command("\(command.name): \(message)")
        }
        connects += 1
    }

    /// Sends every command in one write, then reads every reply: one network round trip for the whole batch.
    /// Error replies come back as `.error`; only transport failures throw.
    func pipeline(_ commands: [RedisCommand]) throws(QueueError) -> [RedisReply] {
        if commands.isEmpty { return [] }
        if socket == nil { try connect() }
        guard let socket, let reader else { throw .connection(reason: "not connected") }
        do throws(QueueError) {
            var request: [UInt8] = []
            request.reserveCapacity(commands.reduce(0) { $0 + $1.encodedCount })
            for command in commands { command.withEncodedBytes { request.append(contentsOf: $0) } }
            try request.withUnsafeBytes { bytes in Result { () throws(QueueError) in try socket.write(bytes) } }.get()
            roundTrips += 1
            var answers: [RedisReply] = []
            answers.reserveCapacity(commands.count)
            while answers.count < commands.count {
                var raw: UnsafeMutableRawPointer?
                guard redisReaderGetReply(reader, &raw) == REDIS_OK else {
                    throw .connection(reason: "\(socket.address): unreadable reply: \(Self.errorString(reader))")
                }
                guard let raw else {
                    let count = try socket.read(into: readBuffer)
                    redisReaderFeed(reader, readBuffer.baseAddress?.assumingMemoryBound(to: CChar.self), count)
                    continue
                }
                replies += 1
                answers.append(Self.convert(raw.assumingMemoryBound(to: redisReply.self)))
                freeReplyObject(raw)
            }
            return answers
        } catch {
            close()
            throw error
        }
    }

    /// Sets the socket read/write timeout, e.g. longer than `BLOCK` for `XREADGROUP`.
    func setTimeout(_ duration: Duration) {
        socket?.setTimeout(duration)
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

    private static func errorString(_ reader: UnsafeMutablePointer<redisReader>) -> String {
        let text = withUnsafeBytes(of: reader.pointee.errstr) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return text.isEmpty ? "protocol error \(reader.pointee.err)" : text
    }
}
