import Foundation
import RichPush

/// `richpush serve`: the enrichment pipeline behind HTTP, for senders that build a push and send it in one request.
enum ServeCommand: Command {
    static let name = "serve"
    static let abstract = "Serve the pipeline over HTTP: POST /v1/enrich, /v1/validate, /v1/preview; GET / (story preview page), /healthz, /readyz, /metrics."
    static let usage = "richpush serve --public-base-url URL [--listen 127.0.0.1:8080] [options]"
    static let options = WorkerOption.all + ServeOption.all

    static func run(_ options: ParsedOptions) async throws -> Int32 {
        let settings = try WorkerSettings(options)
        try settings.checkPublicBaseURL(requiresExplicit: true)
        var configuration = HTTPServer.Configuration()
        let listen = try options.value(of: ServeOption.listen)
        (configuration.address, configuration.port) = try listenAddress(listen)
        let authToken = try options.value(of: ServeOption.authTokenFile).map(bearerToken(readingFrom:))
        let insecure = try options.value(of: ServeOption.insecureNoAuth)
        if authToken == nil, !insecure, !isLoopback(configuration.address) {
            throw UsageError.invalidValue(
                option: ServeOption.listen.name, value: listen,
                expected: "a loopback address, since serve has no --auth-token-file (give one, or --insecure-no-auth to "
                    + "serve /v1/* without authentication behind a proxy that authenticates)")
        }
        let metricsListen = try options.value(of: ServeOption.metricsListen)
        let metricsAddress = try metricsListen.map { text throws(UsageError) in
            try listenAddress(text, option: ServeOption.metricsListen.name)
        }
        // A probe listener others can reach serves /metrics with the same token as /v1/*; health stays open.
        let metricsArePublic = metricsAddress.map { !isLoopback($0.0) } ?? false
        if metricsArePublic, authToken == nil, !insecure {
            throw UsageError.invalidValue(
                option: ServeOption.metricsListen.name, value: metricsListen ?? "",
                expected: "a loopback address, since serve has no --auth-token-file for /metrics there (give one, or "
                    + "--insecure-no-auth to serve /metrics without authentication behind a proxy that authenticates)")
        }
        configuration.maximumBodyBytes = try options.value(of: ServeOption.maximumBody)
        configuration.connectionTimeout = try options.value(of: ServeOption.requestTimeout)
        configuration.headerTimeout = try options.value(of: ServeOption.headerTimeout)
        configuration.bodyTimeout = try options.value(of: ServeOption.bodyTimeout)
        for timeout in ServeOption.timeouts where try options.value(of: timeout) < .seconds(1) {
            throw UsageError.invalidValue(option: timeout.name, value: options.rawValue(of: timeout) ?? "", expected: "at least 1s")
        }
        configuration.maximumConnections = try options.value(of: ServeOption.maximumConnections)
        configuration.maximumConnectionsPerAddress = try options.value(of: ServeOption.maximumConnectionsPerIP)
        configuration.maximumRequestsInFlight = try options.value(of: ServeOption.maximumInFlight)
            ?? ServeOption.requestsInFlightPerConcurrency * settings.concurrency
        let previewLimits = try PreviewLimits(options)

        let (enricher, fetcher, store) = try await settings.makeEnricher(concealsUnreachableHostCause: true)
        defer { fetcher.shutdown() }
        let metrics = JobMetrics(fetcher: fetcher)
        metrics.include(CacheGauges(store: store))
        let requestMetrics = HTTPRequestMetrics()
        let routes = ServeRoutes(
            enricher: enricher, store: store, metrics: metrics, logger: settings.logger, concurrency: settings.concurrency,
            strict: settings.strict, previewLimits: previewLimits, authToken: authToken,
            metricsToken: metricsArePublic ? authToken : nil, requestMetrics: requestMetrics,
            servesMetrics: metricsAddress == nil)
        let observer = ServeRequestObserver(metrics: requestMetrics, logger: settings.logger)
        let server: HTTPServer
        var metricsServer: HTTPServer?
        do {
            server = try HTTPServer(configuration: configuration, observer: observer.observe) { request in
                await routes.respond(to: request)
            }
            if let metricsAddress {
                metricsServer = try HTTPServer(configuration: probeListenerConfiguration(at: metricsAddress), observer: observer.observe) { request in
                    await routes.respondOnMetricsListener(to: request)
                }
            }
        } catch {
            throw ServeError.cannotStart(error.description)
        }
        var fields = settings.startupFields + [
            ("listen", .string("\(configuration.address):\(server.port)")),
            ("authentication", .string(authToken != nil ? "bearer" : "none")),
            ("max_body", .number(String(configuration.maximumBodyBytes))),
            ("max_in_flight", .number(String(configuration.maximumRequestsInFlight))),
            ("max_connections_per_ip", .number(String(configuration.maximumConnectionsPerAddress))),
        ]
        if let metricsServer, let metricsAddress {
            fields.append(("metrics_listen", .string("\(metricsAddress.0):\(metricsServer.port)")))
        }
        settings.logger.started(name, fields)
        if authToken == nil, !isLoopback(configuration.address) {
            settings.logger.log(.warning, "no_authentication", [("reason", .string("--insecure-no-auth: /v1/* is open to every client that reaches \(listen)"))])
        }
        if authToken == nil, metricsArePublic, let metricsListen {
            settings.logger.log(.warning, "no_authentication", [("reason", .string("--insecure-no-auth: /metrics is open to every client that reaches \(metricsListen)"))])
        }

        // Runs until the first SIGTERM or SIGINT: stop accepting, finish what is in flight (every job has its hard
        // deadline), join every job, flush, exit 0. A second signal exits at once.
        let (stopped, stop) = AsyncStream.makeStream(of: Int32.self)
        let watcher = SignalWatcher { signalNumber in stop.yield(signalNumber) }
        var signals = stopped.makeAsyncIterator()
        if let signalNumber = await signals.next() {
            settings.logger.log(.warning, "stopping", [("signal", .number(String(signalNumber)))])
        }
        await server.shutdown(gracePeriod: settings.deadline + .seconds(5))
        await metricsServer?.shutdown(gracePeriod: .seconds(1))
        try? await store.flushUsage()
        settings.logger.summary([("stopped_by_signal", .bool(watcher.signalReceived))])
        return 0
    }

    /// The `--metrics-listen` listener: scrapes and probes only, so small bodies and one thread. An orchestrator's
    /// probe must get through while other clients hold connections open, so one address holds at most 4 of its 512
    /// connections (128 slow addresses before a new one is turned away), and headers are due within 2 s, after
    /// which a silent connection is closed. A probe sends its headers at once and needs neither more connections
    /// nor more time.
    static func probeListenerConfiguration(at address: (String, Int)) -> HTTPServer.Configuration {
        HTTPServer.Configuration(
            address: address.0, port: address.1, threads: 1, maximumConnections: 512, maximumConnectionsPerAddress: 4,
            connectionTimeout: .seconds(5), headerTimeout: .seconds(2), bodyTimeout: .seconds(2), maximumBodyBytes: 4096,
            maximumRequestsInFlight: 16)
    }

    /// `HOST:PORT` or `[IPv6]:PORT`, as an address literal and a port.
    static func listenAddress(_ text: String, option: String = "listen") throws(UsageError) -> (String, Int) {
        let usage = UsageError.invalidValue(option: option, value: text, expected: "HOST:PORT with an IP address, e.g. 127.0.0.1:8080 or [::1]:8080")
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else {
            throw usage
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" { host = "127.0.0.1" }
        guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == "." || $0 == ":" }) else { throw usage }
        return (host, port)
    }
}

extension ServeCommand {
    /// The token in the file at `path`, without surrounding whitespace. An unreadable or empty file, or one holding
    /// more than one token, is a usage error: serving without the token the operator meant is worse than not starting.
    static func bearerToken(readingFrom path: String) throws(UsageError) -> BearerToken {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = access(path, R_OK) == 0 ? "not a regular file" : String(cString: strerror(errno))
            throw .invalidValue(option: "auth-token-file", value: path, expected: "a readable file holding the token (\(reason))")
        }
        let contents = String(decoding: data, as: UTF8.self)
        guard let token = BearerToken(contents.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw .invalidValue(
                option: "auth-token-file", value: path,
                expected: "a file holding one non-empty token of visible ASCII characters (no spaces or line breaks inside)")
        }
        return token
    }

    /// Whether `address` (an IP literal) is a loopback address, 127.0.0.0/8 or ::1, which only this host reaches.
    static func isLoopback(_ address: String) -> Bool {
        var ipv4 = in_addr()
        if inet_pton(AF_INET, address, &ipv4) == 1 { return UInt32(bigEndian: ipv4.s_addr) >> 24 == 127 }
        var ipv6 = in6_addr()
        guard inet_pton(AF_INET6, address, &ipv6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: ipv6) { Array($0) }
        return bytes[..<15].allSatisfy { $0 == 0 } && bytes[15] == 1
    }
}

enum ServeError: Error, CustomStringConvertible {
    case cannotStart(String)

    var description: String {
        switch self {
        case .cannotStart(let reason): reason
        }
    }
}
