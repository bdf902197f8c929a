import CMicroHTTPD
import CRichPushHTTPServer
import Foundation
import Synchronization
import RichPushCore

/// An HTTP/1.1 server on libmicrohttpd that runs an async handler per request.
///
/// libmicrohttpd parses HTTP and polls sockets on its own epoll threads; a request's body is collected there (up to
/// `maximumBodyBytes`, else 413), its connection is suspended, and the handler runs as a task. Its answer resumes the
/// connection, or, for a streamed body, each chunk resumes a reader parked for lack of data. Past
/// `maximumRequestsInFlight` handlers at once, new requests get 503 with `Retry-After` at once. Idle connections
/// (slow clients included) are closed after `connectionTimeout`. Costs one task per request and the body in memory.
public final class HTTPServer: @unchecked Sendable {
    public struct Configuration: Sendable {
        /// An IPv4 or IPv6 literal, e.g. `127.0.0.1` or `::`.
        public var address: String
        /// 0 picks a free port (read it from `port`).
        public var port: Int
        public var threads: Int
        public var maximumConnections: Int
        public var connectionTimeout: Duration
        public var maximumBodyBytes: Int
        public var maximumRequestsInFlight: Int

        public init(
            address: String = "127.0.0.1", port: Int = 8080, threads: Int = max(1, ProcessInfo.processInfo.activeProcessorCount),
            maximumConnections: Int = 1024, connectionTimeout: Duration = .seconds(30), maximumBodyBytes: Int = 1 << 20,
            maximumRequestsInFlight: Int = 256
        ) {
            self.address = address
            self.port = port
            self.threads = threads
            self.maximumConnections = maximumConnections
            self.connectionTimeout = connectionTimeout
            self.maximumBodyBytes = maximumBodyBytes
            self.maximumRequestsInFlight = maximumRequestsInFlight
        }
    }

    public typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse

    public let configuration: Configuration
    let handler: Handler
    private var daemon: OpaquePointer?
    /// Handlers running or responses being sent, counted from handler start to request completion.
    private let inFlight = Mutex(0)
    private let isQuiesced = Atomic<Bool>(false)

    /// Starts listening at once. Throws when the address does not parse or the port cannot be bound.
    public init(configuration: Configuration, handler: @escaping Handler) throws(HTTPServerError) {
        self.configuration = configuration
        self.handler = handler
        let context = Unmanaged.passUnretained(self).toOpaque()
        var errorNumber: Int32 = 0
        let timeoutSeconds = UInt32(max(1, configuration.connectionTimeout.components.seconds))
        daemon = richpush_http_start(
            configuration.address, UInt16(clamping: configuration.port), UInt32(max(1, configuration.threads)),
            UInt32(max(1, configuration.maximumConnections)), timeoutSeconds, httpAccessHandler, context,
            httpRequestCompleted, context, &errorNumber)
        guard daemon != nil else {
            if errorNumber == EINVAL { throw .invalidAddress(configuration.address) }
            throw .cannotListen(
                address: configuration.address, port: configuration.port, reason: String(cString: strerror(errorNumber)))
        }
    }

    deinit {
        if let daemon { MHD_stop_daemon(daemon) }
    }

    /// The port the server listens on.
    public var port: Int {
        guard let daemon else { return 0 }
        return Int(richpush_http_bound_port(daemon))
    }

    /// Requests whose handler runs or whose response is still being sent.
    public var requestsInFlight: Int { inFlight.withLock { $0 } }

    /// Stops accepting connections, lets the requests in flight finish (at most `gracePeriod`), then stops.
    /// Idempotent. Requests still running after the grace period are cut off with their connections.
    public func shutdown(gracePeriod: Duration) async {
        guard let daemon, !isQuiesced.exchange(true, ordering: .sequentiallyConsistent) else { return }
        let listener = MHD_quiesce_daemon(daemon)
        if listener >= 0 { close(listener) }
        let deadline = ContinuousClock.now + gracePeriod
        while requestsInFlight > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        MHD_stop_daemon(daemon)
        self.daemon = nil
    }

    // MARK: Called from libmicrohttpd's threads

    func startHandling(_ exchange: HTTPExchange) -> Bool {
        let admitted = inFlight.withLock { count -> Bool in
            guard count < configuration.maximumRequestsInFlight else { return false }
            count += 1
            return true
        }
        guard admitted else { return false }
        exchange.isCounted = true
        let request = exchange.beginHandling()
        let handler = self.handler
        Task {
            let response = await handler(request)
            exchange.answer(response)
        }
        return true
    }

    func finished(_ exchange: HTTPExchange) {
        exchange.close()
        if exchange.isCounted { inFlight.withLock { $0 -= 1 } }
    }
}
