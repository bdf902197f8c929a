import Foundation
import RichPush

/// `richpush serve`: the enrichment pipeline behind HTTP, for senders that build a push and send it in one request.
enum ServeCommand: Command {
    static let name = "serve"
    static let abstract = "Serve the pipeline over HTTP: POST /v1/enrich, /v1/validate, /v1/preview; GET / (story preview page), /healthz, /readyz, /metrics."
    static let usage = "richpush serve --public-base-url URL [--listen 127.0.0.1:8080] [options]"
    static let options = WorkerSettings.options + [
        OptionDefinition("listen", .value, valueName: "HOST:PORT", help: "Address and port to listen on ([::1]:8080 for IPv6). Default 127.0.0.1:8080."),
        OptionDefinition("max-body", .value, valueName: "SIZE", help: "Largest request body; a larger one gets 413. Default 1MB."),
        OptionDefinition("request-timeout", .value, valueName: "DURATION", help: "Close a connection idle this long (slow clients included). Default 30s."),
        OptionDefinition("header-timeout", .value, valueName: "DURATION", help: "A request's headers are due within this of the connection opening or its previous answer (idle keep-alive connections close then too). Default 10s."),
        OptionDefinition("body-timeout", .value, valueName: "DURATION", help: "A request's body is due within this of its headers; later gets 408. Default 30s."),
        OptionDefinition("max-connections", .value, valueName: "N", help: "Open connections at most. Default 1024."),
        OptionDefinition("max-connections-per-ip", .value, valueName: "N", help: "Open connections from one client address at most (put a proxy's address behind a higher one). Default 64."),
        OptionDefinition("max-in-flight", .value, valueName: "N", help: "Requests being enriched at once; more get 503 with Retry-After. Default 16 x --concurrency."),
        OptionDefinition("auth-token-file", .value, valueName: "FILE", help: "Require 'Authorization: Bearer <token>' on /v1/*, the token being the file's contents (trimmed); else 401. /, /healthz, /readyz and /metrics stay open."),
        OptionDefinition("insecure-no-auth", .flag, help: "Allow a non-loopback --listen without --auth-token-file (behind a proxy that authenticates)."),
        OptionDefinition("metrics-listen", .value, valueName: "HOST:PORT", help: "Serve /metrics, /healthz and /readyz on this address too, and /metrics no longer on --listen."),
    ] + PreviewLimits.options

    static func run(_ options: ParsedOptions) async throws -> Int32 {
        let settings = try WorkerSettings(options)
        try settings.checkPublicBaseURL(requiresExplicit: true)
        var configuration = HTTPServer.Configuration()
        let listen = options.string("listen") ?? "127.0.0.1:8080"
        (configuration.address, configuration.port) = try listenAddress(listen)
        let authToken = try options.string("auth-token-file").map(bearerToken(readingFrom:))
        let insecure = options.flag("insecure-no-auth")
        if authToken == nil, !insecure, !isLoopback(configuration.address) {
            throw UsageError.invalidValue(
                option: "listen", value: listen,
                expected: "a loopback address, since serve has no --auth-token-file (give one, or --insecure-no-auth to "
                    + "serve /v1/* without authentication behind a proxy that authenticates)")
        }
        let metricsAddress = try options.string("metrics-listen").map { text throws(UsageError) in
            try listenAddress(text, option: "metrics-listen")
        }
        configuration.maximumBodyBytes = try options.byteCount("max-body") ?? configuration.maximumBodyBytes
        configuration.connectionTimeout = try options.duration("request-timeout") ?? configuration.connectionTimeout
        configuration.headerTimeout = try options.duration("header-timeout") ?? configuration.headerTimeout
        configuration.bodyTimeout = try options.duration("body-timeout") ?? configuration.bodyTimeout
        for (name, value) in [("request-timeout", configuration.connectionTimeout), ("header-timeout", configuration.headerTimeout),
                              ("body-timeout", configuration.bodyTimeout)] where value < .seconds(1) {
            throw UsageError.invalidValue(option: name, value: options.string(name) ?? "", expected: "at least 1s")
        }
        configuration.maximumConnections = try options.integer("max-connections", range: 1...100_000) ?? configuration.maximumConnections
        configuration.maximumConnectionsPerAddress =
            try options.integer("max-connections-per-ip", range: 1...100_000) ?? configuration.maximumConnectionsPerAddress
        configuration.maximumRequestsInFlight = try options.integer("max-in-flight", range: 1...100_000) ?? 16 * settings.concurrency
        let previewLimits = try PreviewLimits(options)

        let (enricher, fetcher, store) = try await settings.makeEnricher()
        defer { fetcher.shutdown() }
        let metrics = JobMetrics(fetcher: fetcher)
        metrics.include(CacheGauges(store: store))
        let requestMetrics = HTTPRequestMetrics()
        let routes = ServeRoutes(
            enricher: enricher, store: store, metrics: metrics, logger: settings.logger, concurrency: settings.concurrency,
            strict: settings.strict, previewLimits: previewLimits, authToken: authToken, requestMetrics: requestMetrics,
            servesMetrics: metricsAddress == nil)
        let observer = ServeRequestObserver(metrics: requestMetrics, logger: settings.logger)
        let server: HTTPServer
        var metricsServer: HTTPServer?
        do {
            server = try HTTPServer(configuration: configuration, observer: observer.observe) { request in
                await routes.respond(to: request)
            }
            if let metricsAddress {
                // Scrapes and probes only: small bodies, few threads, its own connection limits.
                let metricsConfiguration = HTTPServer.Configuration(
                    address: metricsAddress.0, port: metricsAddress.1, threads: 1, maximumConnections: 64,
                    maximumConnectionsPerAddress: 16, maximumBodyBytes: 4096, maximumRequestsInFlight: 16)
                metricsServer = try HTTPServer(configuration: metricsConfiguration, observer: observer.observe) { request in
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
