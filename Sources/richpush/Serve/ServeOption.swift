import RichPush

/// The options of `richpush serve` besides the worker options; the defaults are `HTTPServer.Configuration`'s.
enum ServeOption {
    private static let server = HTTPServer.Configuration()
    /// Requests in flight per job slot when `--max-in-flight` is not given.
    static let requestsInFlightPerConcurrency = 16

    static let listen = OptionKey(
        "listen", .text("HOST:PORT"), default: "\(server.address):\(server.port)",
        help: "Address and port to listen on ([::1]:8080 for IPv6).")
    static let maximumBody = OptionKey(
        "max-body", .byteCount, default: server.maximumBodyBytes, help: "Largest request body; a larger one gets 413.")
    static let requestTimeout = OptionKey(
        "request-timeout", .duration, default: server.connectionTimeout,
        help: "Close a connection idle this long (slow clients included).")
    static let headerTimeout = OptionKey(
        "header-timeout", .duration, default: server.headerTimeout,
        help: "A request's headers are due within this of the connection opening or its previous answer (idle keep-alive connections close then too).")
    static let bodyTimeout = OptionKey(
        "body-timeout", .duration, default: server.bodyTimeout, help: "A request's body is due within this of its headers; later gets 408.")
    static let maximumConnections = OptionKey(
        "max-connections", .integer(in: 1...100_000), default: server.maximumConnections, help: "Open connections at most.")
    static let maximumConnectionsPerIP = OptionKey(
        "max-connections-per-ip", .integer(in: 1...100_000), default: server.maximumConnectionsPerAddress,
        help: "Open connections from one client address at most (put a proxy's address behind a higher one).")
    static let maximumInFlight = OptionKey(
        "max-in-flight", .integer(in: 1...100_000), defaultText: "\(requestsInFlightPerConcurrency) x --concurrency",
        help: "Requests being enriched at once; more get 503 with Retry-After.")
    static let authTokenFile = OptionKey(
        "auth-token-file", .text("FILE"), defaultText: "none",
        help: "Require 'Authorization: Bearer TOKEN' on /v1/*, the token being the file's contents (trimmed); else 401. /, /healthz, /readyz and /metrics stay open.")
    static let insecureNoAuth = OptionKey(
        "insecure-no-auth", .flag, default: false,
        help: "Allow a non-loopback --listen or --metrics-listen without --auth-token-file (behind a proxy that authenticates).")
    static let metricsListen = OptionKey(
        "metrics-listen", .text("HOST:PORT"), defaultText: "none",
        help: "Serve /metrics, /healthz and /readyz on this address too, and /metrics no longer on --listen. A non-loopback address needs --auth-token-file, whose token /metrics then requires.")
    /// The timeouts, each at least a second.
    static let timeouts = [requestTimeout, headerTimeout, bodyTimeout]

    static let all: [any AnyOptionKey] = [
        listen, maximumBody, requestTimeout, headerTimeout, bodyTimeout, maximumConnections, maximumConnectionsPerIP,
        maximumInFlight, authTokenFile, insecureNoAuth, metricsListen,
    ] + PreviewLimits.options
}
