import CMicroHTTPD
import CRichPushHTTPServer
import Foundation
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd that runs an async handler per request.
///
/// libmicrohttpd parses HTTP and polls sockets on its own epoll threads; a request's body is collected there (up to
/// `maximumBodyBytes`, else 413, a chunked body as soon as it passes the limit), and the handler runs as a task on
/// that same thread (`InlineTaskExecutor`) until it first waits for something outside. A handler that answers
/// without waiting (a warm enrichment) is answered in the same call; otherwise the connection is suspended, and the
/// answer resumes it. For a streamed body, each chunk resumes a reader parked for lack of data. Past
/// `maximumRequestsInFlight` requests at once (counted until their work has stopped, not only until the client
/// left), new requests get 503 with `Retry-After` at once.
///
/// Slow and hostile clients: a request's headers are due within `headerTimeout` of the connection opening or of
/// its previous answer, and its body within `bodyTimeout` of its headers; a connection idle for
/// `connectionTimeout` is closed; one client address holds at most `maximumConnectionsPerAddress` connections. A
/// sweep every 100 ms enforces the deadlines and cancels the work of a client that left while its connection was
/// suspended. Costs one task per request, the body in memory, and one sweeper thread.
package final class HTTPServer: Sendable {
    package struct Configuration: Sendable {
        /// An IPv4 or IPv6 literal, e.g. `127.0.0.1` or `::`.
        package var address: String
        /// 0 picks a free port (read it from `port`).
        package var port: Int
        package var threads: Int
        package var maximumConnections: Int
        package var maximumConnectionsPerAddress: Int
        package var connectionTimeout: Duration
        package var headerTimeout: Duration
        package var bodyTimeout: Duration
        package var maximumBodyBytes: Int
        package var maximumRequestsInFlight: Int

        package init(
            address: String = "127.0.0.1", port: Int = 8080, threads: Int = max(1, ProcessInfo.processInfo.activeProcessorCount),
            maximumConnections: Int = 1024, maximumConnectionsPerAddress: Int = 64, connectionTimeout: Duration = .seconds(30),
            headerTimeout: Duration = .seconds(10), bodyTimeout: Duration = .seconds(30), maximumBodyBytes: Int = 1 << 20,
            maximumRequestsInFlight: Int = 256
        ) {
            self.address = address
            self.port = port
            self.threads = threads
            self.maximumConnections = maximumConnections
            self.maximumConnectionsPerAddress = maximumConnectionsPerAddress
            self.connectionTimeout = connectionTimeout
            self.headerTimeout = headerTimeout
            self.bodyTimeout = bodyTimeout
            self.maximumBodyBytes = maximumBodyBytes
            self.maximumRequestsInFlight = maximumRequestsInFlight
        }
    }

    package typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse
    /// Called once per request that got a response, on libmicrohttpd's thread as it completes the request: keep it
    /// short (a counter, a rate-limited log line). A request whose client left before any answer is not reported.
    package typealias Observer = @Sendable (HTTPRequestOutcome) -> Void

    package let configuration: Configuration
    let handler: Handler
    let observer: Observer?
    let connections = HTTPConnectionRegistry()
    /// The address of libmicrohttpd's daemon, 0 once `shutdown` stopped it. Behind a lock because `port` reads it
    /// from any task; held as an address because a pointer is not `Sendable`.
    private let daemonAddress = Mutex<UInt>(0)
    /// Requests admitted and not yet over (their work has ended and libmicrohttpd has completed them), and whether
    /// shutdown has begun; one lock, so no request is admitted after shutdown took the list of those to stop.
    private let admission = Mutex(Admission())
    /// Whether `shutdown` has been called (it runs once).
    private let isShutDown = Atomic<Bool>(false)
    private let sweeper: HTTPSweeper

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

    /// Starts listening at once. Throws when the address does not parse or the port cannot be bound (another
    /// server on it included). `observer` hears how each request ended, refusals by the server itself included.
    package init(configuration: Configuration, observer: Observer? = nil, handler: @escaping Handler) throws(HTTPServerError) {
        self.configuration = configuration
        self.handler = handler
        self.observer = observer
        sweeper = HTTPSweeper()
        let context = Unmanaged.passUnretained(self).toOpaque()
        var errorNumber: Int32 = 0
        let timeoutSeconds = UInt32(max(1, configuration.connectionTimeout.components.seconds))
        let started = richpush_http_start(
            configuration.address, UInt16(clamping: configuration.port), UInt32(max(1, configuration.threads)),
            UInt32(max(1, configuration.maximumConnections)), UInt32(max(1, configuration.maximumConnectionsPerAddress)),
            timeoutSeconds, httpAccessHandler, httpRequestCompleted, httpConnectionNotified, context, &errorNumber)
        guard let started else {
            if errorNumber == EINVAL { throw .invalidAddress(configuration.address) }
            throw .cannotListen(
                address: configuration.address, port: configuration.port, reason: String(cString: strerror(errorNumber)))
        }
        daemonAddress.withLock { $0 = UInt(bitPattern: started) }
        sweeper.start { [weak self] in self?.sweep() }
    }

    deinit {
        sweeper.stop()
        let address = daemonAddress.withLock { address in
            defer { address = 0 }
            return address
        }
        if let daemon = OpaquePointer(bitPattern: address) { MHD_stop_daemon(daemon) }
    }

    /// The port the server listens on.
    package var port: Int {
        daemonAddress.withLock { address in OpaquePointer(bitPattern: address).map { Int(richpush_http_bound_port($0)) } ?? 0 }
    }

    /// Requests whose handler or streamed body runs, or whose response is still being sent.
    package var requestsInFlight: Int { admission.withLock { $0.exchanges.count } }

    /// Connections libmicrohttpd has not yet closed; one drops out after its last response has been released.
    package var openConnections: Int { connections.count }

    var isStopping: Bool { admission.withLock { $0.isStopping } }

    /// Stops taking new requests (they get 503 with `Retry-After` and `Connection: close`, on open connections and new
    /// ones alike), tells streamed bodies to wrap up (`HTTPResponseWriter.isStopping`), lets the requests in flight
    /// finish (at most `gracePeriod`), then cancels what still runs (a handler still running is answered 503, since
    /// libmicrohttpd cannot stop with a connection suspended) and waits until every handler and streamed body has
    /// returned. Answers sent meanwhile carry `Connection: close`, and the connections are left a moment to close, so
    /// that a request sent on a keep-alive connection is answered rather than met with EOF. Idempotent.
    ///
    /// The listening socket stays open until the daemon stops: `MHD_quiesce_daemon` in libmicrohttpd 0.9.75-0.9.77
    /// removes it from each polling thread's epoll set while that thread may be removing it too (at the connection
    /// limit), and aborts the process when it loses that race ("Failed to remove listen FD from epoll set",
    /// daemon.c; one shutdown in 150 of `testShutdownUnderKeepAliveLoadLeavesNoSentRequestUnanswered`).
    package func shutdown(gracePeriod: Duration) async {
        guard let daemon = OpaquePointer(bitPattern: daemonAddress.withLock { $0 }), !isShutDown.exchange(true, ordering: .sequentiallyConsistent) else { return }
        let running = admission.withLock { admission in
            admission.isStopping = true
            return Array(admission.exchanges.values)
        }
        for exchange in running { exchange.beginStopping() }
        await waitForRequestsInFlight(atMost: gracePeriod)
        let overran = admission.withLock { Array($0.exchanges.values) }
        for exchange in overran {
            exchange.answer(Self.stoppingResponse)
            exchange.runningWork?.cancel()
        }
        // Every job has stopped before the daemon (and then the process) goes: each has a deadline of its own.
        for exchange in overran {
            await exchange.runningWork?.value
        }
        await waitForRequestsInFlight(atMost: .seconds(2))
        // Connections still open get a moment to send the request they may have had on the way, then idle ones go.
        let linger = ContinuousClock.now + .seconds(1)
        while connections.count > 0, ContinuousClock.now < linger {
            try? await Task.sleep(for: .milliseconds(10))
        }
        connections.cutIdle()
        await waitForRequestsInFlight(atMost: .seconds(1))
        sweeper.stop()
        // `port` answers 0 from here on rather than asking a stopped daemon.
        daemonAddress.withLock { $0 = 0 }
        MHD_stop_daemon(daemon)
    }

    /// Returns once no request is in flight, or after `limit`.
    private func waitForRequestsInFlight(atMost limit: Duration) async {
        let deadline = ContinuousClock.now + limit
        while requestsInFlight > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    static let stoppingResponse = HTTPResponse.error(
        503, code: .shuttingDown, message: "the server is stopping; retry on another instance",
        headers: [("Retry-After", "1"), ("Connection", "close")])

    var bodyTimeoutResponse: HTTPResponse {
        .error(408, code: .bodyTimeout, message: "the request body did not arrive within \(configuration.bodyTimeout)")
    }

    var tooLargeResponse: HTTPResponse {
        .error(413, code: .bodyTooLarge, message: "the request body is over the \(configuration.maximumBodyBytes)-byte limit (--max-body)")
    }

    // MARK: Called from libmicrohttpd's threads and the sweeper

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
            let work = Task(executorPreference: executor) { [self] in
                let response = await handler(request)
                if exchange.answer(response), case .stream(let produce) = response.body {
                    // On the pool: a stream (a whole NDJSON batch, warm jobs run without waiting) must not hold the
                    // polling thread, and its headers go out meanwhile.
                    await withTaskExecutorPreference(globalConcurrentExecutor) {
                        await produce(HTTPResponseWriter(exchange: exchange))
                    }
                    exchange.finishStream()
                }
                if exchange.workDidEnd() { forget(exchange) }
            }
            exchange.setWork(work)
        }
        if let response = exchange.answerOrSuspend() { return .answered(response) }
        return .suspended
    }

    /// libmicrohttpd completed the request; unless it was answered whole, the client is gone and the work is
    /// cancelled. It counts as in flight until that work has returned.
    func requestCompleted(_ exchange: HTTPExchange, normally: Bool) {
        connections.requestCompleted(on: exchange.connection)
        if let observer, let status = exchange.status {
            observer(HTTPRequestOutcome(
                method: exchange.method, path: exchange.path, status: status, duration: .now - exchange.started))
        }
        let (isOver, cancel) = exchange.requestDidComplete(abnormally: !normally)
        cancel?.cancel()
        if isOver { forget(exchange) }
    }

    private func forget(_ exchange: HTTPExchange) {
        admission.withLock { _ = $0.exchanges.removeValue(forKey: ObjectIdentifier(exchange)) }
    }

    /// One pass of the sweeper: overdue headers and bodies are cut off, and the work of a client that left a
    /// suspended connection is cancelled.
    private func sweep() {
        let now = ContinuousClock.now
        for exchange in connections.sweep(headerTimeout: configuration.headerTimeout, now: now) {
            if now > exchange.bodyDeadline, case .receiving = exchange.phase {
                exchange.refuse(with: bodyTimeoutResponse, reason: "Request Timeout")
            }
            exchange.workOfDepartedClient()?.cancel()
        }
    }
}
