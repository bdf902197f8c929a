import CMicroHTTPD
import CRichPushHTTPServer
import Foundation
import Synchronization
import RichPushCore

/// An HTTP/1.1 server on libmicrohttpd that runs an async handler per request.
///
/// libmicrohttpd parses HTTP and polls sockets on its own epoll threads; a request's body is collected there (up to
/// `maximumBodyBytes`, else 413), and the handler runs as a task on that same thread (`InlineTaskExecutor`) until
/// it first waits for something outside. A handler that answers without waiting (a warm enrichment) is answered in
/// the same call; otherwise the connection is suspended, and the answer resumes it. For a streamed body, each chunk
/// resumes a reader parked for lack of data. Past `maximumRequestsInFlight` handlers at once, new requests get 503
/// with `Retry-After` at once. Idle connections (slow clients included) are closed after `connectionTimeout`.
/// Costs one task per request and the body in memory.
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
    /// Handlers running or responses being sent, counted from handler start to request completion, and whether
    /// shutdown has begun; one lock, so no request is admitted after shutdown counted the last one out.
    private let admission = Mutex(Admission())
    private let isQuiesced = Atomic<Bool>(false)

    private struct Admission {
        var exchanges: [ObjectIdentifier: HTTPExchange] = [:]
        var isStopping = false
    }

    /// What `startHandling` did with a request.
    enum Start {
        /// The handler answered inline; queue this.
        case answered(HTTPResponse)
        /// The handler runs on; the connection is suspended until it answers.
        case suspended
        case saturated
        case stopping
    }

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
    public var requestsInFlight: Int { admission.withLock { $0.exchanges.count } }

    /// Stops accepting connections and new requests on open ones (those get 503 and `Connection: close`), lets the
    /// requests in flight finish (at most `gracePeriod`), then stops. Idempotent. Requests still running after the
    /// grace period are answered 503, since libmicrohttpd cannot stop with a connection suspended.
    public func shutdown(gracePeriod: Duration) async {
        guard let daemon, !isQuiesced.exchange(true, ordering: .sequentiallyConsistent) else { return }
        admission.withLock { $0.isStopping = true }
        let listener = MHD_quiesce_daemon(daemon)
        if listener >= 0 { close(listener) }
        await waitForRequestsInFlight(atMost: gracePeriod)
        let overran = admission.withLock { Array($0.exchanges.values) }
        for exchange in overran {
            exchange.answer(Self.stoppingResponse)
            exchange.finishStream()
        }
        await waitForRequestsInFlight(atMost: .seconds(1))
        MHD_stop_daemon(daemon)
        self.daemon = nil
    }

    /// Returns once no request is in flight, or after `limit`.
    private func waitForRequestsInFlight(atMost limit: Duration) async {
        let deadline = ContinuousClock.now + limit
        while requestsInFlight > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    static let stoppingResponse = HTTPResponse.error(
        503, code: "shutting_down", message: "the server is stopping; retry on another instance",
        headers: [("Retry-After", "1"), ("Connection", "close")])

    // MARK: Called from libmicrohttpd's threads

    func startHandling(_ exchange: HTTPExchange) -> Start {
        let refusal = admission.withLock { admission -> Start? in
            if admission.isStopping { return .stopping }
            guard admission.exchanges.count < configuration.maximumRequestsInFlight else { return .saturated }
            admission.exchanges[ObjectIdentifier(exchange)] = exchange
            return nil
        }
        if let refusal { return refusal }
        let request = exchange.beginHandling()
        let handler = self.handler
        let executor = InlineTaskExecutor()
        executor.runInline {
            Task(executorPreference: executor) {
                exchange.answer(await handler(request))
            }
        }
        if let response = exchange.answerOrSuspend() { return .answered(response) }
        return .suspended
    }

    func finished(_ exchange: HTTPExchange) {
        exchange.close()
        admission.withLock { _ = $0.exchanges.removeValue(forKey: ObjectIdentifier(exchange)) }
    }
}
