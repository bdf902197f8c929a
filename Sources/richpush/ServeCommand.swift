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
    ] + PreviewLimits.options

    static func run(_ options: ParsedOptions) async throws -> Int32 {
        let settings = try WorkerSettings(options)
        try settings.checkPublicBaseURL(requiresExplicit: true)
        var configuration = HTTPServer.Configuration()
        (configuration.address, configuration.port) = try listenAddress(options.string("listen") ?? "127.0.0.1:8080")
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
        let routes = ServeRoutes(
            enricher: enricher, store: store, metrics: metrics, logger: settings.logger, concurrency: settings.concurrency,
            strict: settings.strict, previewLimits: previewLimits)
        let server: HTTPServer
        do {
            server = try HTTPServer(configuration: configuration) { request in await routes.respond(to: request) }
        } catch {
            throw ServeError.cannotStart(error.description)
        }
        settings.logger.started(name, settings.startupFields + [
            ("listen", .string("\(configuration.address):\(server.port)")),
            ("max_body", .number(String(configuration.maximumBodyBytes))),
            ("max_in_flight", .number(String(configuration.maximumRequestsInFlight))),
            ("max_connections_per_ip", .number(String(configuration.maximumConnectionsPerAddress))),
        ])

        // Runs until the first SIGTERM or SIGINT: stop accepting, finish what is in flight (every job has its hard
        // deadline), join every job, flush, exit 0. A second signal exits at once.
        let (stopped, stop) = AsyncStream.makeStream(of: Int32.self)
        let watcher = SignalWatcher { signalNumber in stop.yield(signalNumber) }
        var signals = stopped.makeAsyncIterator()
        if let signalNumber = await signals.next() {
            settings.logger.log(.warning, "stopping", [("signal", .number(String(signalNumber)))])
        }
        await server.shutdown(gracePeriod: settings.deadline + .seconds(5))
        try? await store.flushUsage()
        settings.logger.summary([("stopped_by_signal", .bool(watcher.signalReceived))])
        return 0
    }

    /// `HOST:PORT` or `[IPv6]:PORT`, as an address literal and a port.
    static func listenAddress(_ text: String) throws(UsageError) -> (String, Int) {
        let usage = UsageError.invalidValue(option: "listen", value: text, expected: "HOST:PORT with an IP address, e.g. 127.0.0.1:8080 or [::1]:8080")
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

enum ServeError: Error, CustomStringConvertible {
    case cannotStart(String)

    var description: String {
        switch self {
        case .cannotStart(let reason): reason
        }
    }
}
