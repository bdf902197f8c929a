import Dispatch
import Foundation
import RichPushCore

/// Runs a ``RedisConnection``'s blocking hiredis calls on its own serial dispatch queue, so that
/// `XREADGROUP … BLOCK` and network stalls never occupy a thread of Swift's cooperative pool.
///
/// `@unchecked Sendable`: the connection is only ever touched from `queue`.
final class RedisSession: @unchecked Sendable {
    private let queue: DispatchQueue
    private let connection: RedisConnection
    private let baseTimeout: Duration

    init(endpoint: RedisEndpoint, timeout: Duration, label: String) {
        queue = DispatchQueue(label: "richpush.redis.\(label)")
        connection = RedisConnection(endpoint: endpoint, timeout: timeout)
        baseTimeout = timeout
    }

    /// Connects now (handshake included) if not connected. Returns whether a new connection was made.
    @discardableResult
    func connect() async throws(QueueError) -> Bool {
        let result: Result<Bool, QueueError> = await withCheckedContinuation { continuation in
            queue.async { [self] in
                if self.connection.isConnected { continuation.resume(returning: .success(false)); return }
                do throws(QueueError) {
                    try self.connection.connect()
                    continuation.resume(returning: .success(true))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// Sends the commands pipelined and returns one reply per command (one round trip).
    /// `extraTimeout` lengthens the socket timeout for this batch (the `BLOCK` time of a read).
    /// Connects first when needed. Throws only for transport and handshake failures.
    func perform(_ commands: [RedisCommand], extraTimeout: Duration = .zero) async throws(QueueError) -> [RedisReply] {
        let result: Result<[RedisReply], QueueError> = await withCheckedContinuation { continuation in
            queue.async { [self] in
                do throws(QueueError) {
                    if !self.connection.isConnected { try self.connection.connect() }
                    if extraTimeout > .zero { self.connection.setTimeout(self.baseTimeout + extraTimeout) }
                    let replies = try self.connection.pipeline(commands)
                    if extraTimeout > .zero { self.connection.setTimeout(self.baseTimeout) }
                    continuation.resume(returning: .success(replies))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// One command, one reply.
    func perform(_ command: RedisCommand, extraTimeout: Duration = .zero) async throws(QueueError) -> RedisReply {
        let replies = try await perform([command], extraTimeout: extraTimeout)
        guard let reply = replies.first else { throw .unexpectedReply(command: command.name, reply: "no reply") }
        return reply
    }

    /// Drops the connection (e.g. after the server said LOADING); the next call reconnects.
    func disconnect() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { [self] in
                self.connection.close()
                continuation.resume()
            }
        }
    }

    /// Round trips, replies and successful connects so far.
    func counters() async -> (roundTrips: Int, replies: Int, connects: Int) {
        await withCheckedContinuation { continuation in
            queue.async { [self] in
                continuation.resume(returning: (self.connection.roundTrips, self.connection.replies, self.connection.connects))
            }
        }
    }
}
