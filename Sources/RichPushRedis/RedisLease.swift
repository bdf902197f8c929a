import Foundation
import RichPushCache
import RichPushCore

/// Cross-host cache leases in Redis, for `ObjectStorageMediaStore`'s single-flight: `SET name token NX PX ttl`
/// takes one, and a compare-and-delete script releases it only while `token` still holds it (never a lease that
/// expired and went to another host meanwhile).
///
/// Each call is one round trip on one of a few connections (chosen by name, so calls for different keys do not
/// queue behind each other). When Redis cannot be reached, `acquire` answers with an empty token: the caller goes
/// on without cross-host exclusion (a key may then render once per host) rather than failing the job's media.
public final class RedisLease: CacheLease {
    private static let releaseScript = """
        if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end
        """

    public let endpoint: RedisEndpoint
    private let sessions: [RedisSession]

    /// No I/O; call `checkConnection()` at start-up for one clear error. `timeout` bounds each round trip.
    public init(endpoint: RedisEndpoint, timeout: Duration = .seconds(2), connections: Int = 4) {
        self.endpoint = endpoint
        sessions = (0..<max(1, connections)).map {
            RedisSession(endpoint: endpoint, timeout: timeout, label: "lease-\($0)")
        }
    }

    public var description: String { "redis \(endpoint.description)" }

    /// Connects every session (handshake included): throws `.connection` or `.authentication` with the reason.
    public func checkConnection() async throws(QueueError) {
        for session in sessions { try await session.connect() }
    }

    public func checkAvailability() async throws(CacheError) {
        do throws(QueueError) {
            try await checkConnection()
        } catch {
            throw .leaseUnavailable(reason: error.description)
        }
    }

    public func acquire(_ name: String, timeToLive: Duration) async throws(CacheError) -> String? {
        let token = UUID().uuidString
        let milliseconds = max(1, timeToLive.roundedUpMilliseconds)
        let reply: RedisReply
        do {
            reply = try await session(for: name).perform(RedisCommand("SET", name, token, "NX", "PX", String(milliseconds)))
        } catch {
            return ""
        }
        switch reply {
        case .status, .string: return token
        case .null: return nil
        default: return ""
        }
    }

    public func release(_ name: String, token: String) async {
        guard !token.isEmpty else { return }
        _ = try? await session(for: name).perform(RedisCommand("EVAL", Self.releaseScript, "1", name, token))
    }

    private func session(for name: String) -> RedisSession {
        var hash: UInt32 = 2_166_136_261
        for byte in name.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return sessions[Int(hash % UInt32(sessions.count))]
    }
}
