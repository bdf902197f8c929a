import CRichPushHTTPServer
import Foundation
import Glibc
import Synchronization

/// Every open connection of one server, with the request it carries, so that a sweep can hold each to its
/// deadlines: libmicrohttpd itself has only an idle timeout, which a client sending a header line now and then never
/// reaches.
///
/// Entries come and go in libmicrohttpd's connection callbacks. It reports a connection closed before it closes its
/// socket, and the sweep touches a socket only under the same lock, so it never shuts down a reused descriptor.
final class HTTPConnectionRegistry: Sendable {
    private struct Record {
        let socket: Int32
        /// The request whose headers have arrived, until libmicrohttpd completes it.
        var exchange: HTTPExchange?
        /// When the connection opened or its last request completed: the next request's headers are due from then.
        var waitingSince: ContinuousClock.Instant
        var isCut = false
    }

    private let records = Mutex<[UInt: Record]>([:])

    private static func key(_ connection: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection))) }

    func opened(_ connection: OpaquePointer) {
        let record = Record(socket: Int32(richpush_http_connection_socket(connection)), waitingSince: .now)
        records.withLock { $0[Self.key(connection)] = record }
    }

    func closed(_ connection: OpaquePointer) {
        records.withLock { _ = $0.removeValue(forKey: Self.key(connection)) }
    }

    /// The connection's socket, or -1 when it is not registered.
    func socket(of connection: OpaquePointer) -> Int32 {
        records.withLock { $0[Self.key(connection)]?.socket ?? -1 }
    }

    /// A request's headers arrived; false when the sweep has already cut the connection.
    func requestStarted(on connection: OpaquePointer, _ exchange: HTTPExchange) -> Bool {
        records.withLock { records in
            guard let record = records[Self.key(connection)] else { return true }
            guard !record.isCut else { return false }
            records[Self.key(connection)]?.exchange = exchange
            return true
        }
    }

    func requestCompleted(on connection: OpaquePointer) {
        records.withLock { records in
            records[Self.key(connection)]?.exchange = nil
            records[Self.key(connection)]?.waitingSince = .now
        }
    }

    var count: Int { records.withLock { $0.count } }

    /// Shuts down the socket of every connection whose next request's headers are overdue (libmicrohttpd then
    /// reads the end of the stream and closes it; an idle keep-alive connection ends the same way), and returns the
    /// requests in progress for the caller to check.
    func sweep(headerTimeout: Duration, now: ContinuousClock.Instant) -> [HTTPExchange] {
        records.withLock { records in
            var exchanges: [HTTPExchange] = []
            for (key, record) in records {
                if let exchange = record.exchange {
                    exchanges.append(exchange)
                } else if !record.isCut, now - record.waitingSince > headerTimeout, record.socket >= 0 {
                    Glibc.shutdown(record.socket, shutReadWrite)
                    records[key]?.isCut = true
                }
            }
            return exchanges
        }
    }

    /// Shuts down every connection carrying no request (the idle ones left at shutdown).
    func cutIdle() {
        records.withLock { records in
            for (key, record) in records where record.exchange == nil && !record.isCut && record.socket >= 0 {
                Glibc.shutdown(record.socket, shutReadWrite)
                records[key]?.isCut = true
            }
        }
    }
}
