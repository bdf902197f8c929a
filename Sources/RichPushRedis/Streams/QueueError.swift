import RichPushCore
/// Everything that can go wrong while talking to Redis or configuring the stream consumer.
///
/// Descriptions never contain a password: URLs are shown with their credentials replaced by `***`.
public enum QueueError: RichPushError, Equatable {
    /// The Redis URL could not be parsed.
    case invalidURL(url: String, reason: String)
    /// TLS cannot be set up on this side: a CA file, client certificate or key that is missing or does not load.
    case tlsSetup(reason: String)
    /// The server's TLS answer was refused: its certificate is unknown, expired or for another host, it does not
    /// speak TLS on that port, or it refused this worker's client certificate.
    case tlsHandshake(endpoint: String, reason: String)
    /// A configuration value is out of range (empty stream name, zero concurrency, ...).
    case invalidConfiguration(String)
    /// The TCP connection could not be opened, or broke while a command was in flight.
    case connection(reason: String)
    /// Redis refused the credentials (`WRONGPASS`), or requires some (`NOAUTH`).
    case authentication(endpoint: String, reason: String)
    /// Redis answered a command with an error that retrying will not fix.
    case command(String)
    /// A Redis Cluster node answered `MOVED`, `ASK` or `CROSSSLOT`: a key lives on another node, or one command
    /// spans hash slots. RichPush talks to one node and follows no redirect.
    case clusterRedirect(command: String, answer: String)
    /// A key the consumer writes to exists with a type other than stream.
    case wrongType(key: String, type: String)
    /// Redis answered with a reply whose shape the consumer does not understand.
    case unexpectedReply(command: String, reply: String)
    /// `run()` was called while the consumer was already running (or after it finished).
    case alreadyRunning
    /// `stop()` was requested but some finished jobs could not get their result and acknowledgement before the
    /// shutdown timeout. Their entries stay pending in Redis and will be claimed by another consumer.
    case shutdownIncomplete(unacknowledged: Int, reason: String)

    /// A stable snake_case identifier for JSON output and logs.
    public var code: ErrorCode {
        switch self {
        case .invalidURL: .invalidURL
        case .tlsSetup: "tls_setup_failed"
        case .tlsHandshake: "tls_handshake_failed"
        case .invalidConfiguration: .invalidConfiguration
        case .connection: "connection_failed"
        case .authentication: "authentication_failed"
        case .command: "command_failed"
        case .clusterRedirect: "cluster_redirect"
        case .wrongType: "wrong_type"
        case .unexpectedReply: "unexpected_reply"
        case .alreadyRunning: "already_running"
        case .shutdownIncomplete: "shutdown_incomplete"
        }
    }

    /// True when retrying the same call cannot help: a bad URL or configuration, refused credentials, a key of the
    /// wrong type, a command Redis rejects. A broken connection or an odd reply may pass.
    public var isPermanent: Bool {
        switch self {
        case .invalidURL, .tlsSetup, .tlsHandshake, .invalidConfiguration, .authentication, .command, .clusterRedirect,
            .wrongType, .alreadyRunning:
            true
        case .connection, .unexpectedReply, .shutdownIncomplete:
            false
        }
    }

    /// The cluster redirect in an error reply (`MOVED 3999 10.0.0.2:6379`, `ASK …`, `CROSSSLOT …`), if it is one.
    static func clusterRedirect(in reply: RedisReply, command: String) -> QueueError? {
        guard let prefix = reply.errorPrefix, ["MOVED", "ASK", "CROSSSLOT"].contains(prefix) else { return nil }
        return .clusterRedirect(command: command, answer: reply.errorMessage ?? prefix)
    }

    /// Only the consumer's own configuration is this process's fault; everything else is Redis's answer.
    public var isLocalFault: Bool {
        switch self {
        case .invalidURL, .tlsSetup, .invalidConfiguration: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .invalidURL(let url, let reason):
            "invalid Redis URL \(url): \(reason) (expected redis[s]://[user:password@]host:port/db)"
        case .tlsSetup(let reason):
            "Redis TLS setup failed: \(reason)"
        case .tlsHandshake(let endpoint, let reason):
            "Redis at \(endpoint) failed the TLS handshake: \(reason)"
        case .invalidConfiguration(let reason):
            "invalid stream consumer configuration: \(reason)"
        case .connection(let reason):
            "Redis connection failed: \(reason)"
        case .authentication(let endpoint, let reason):
            "Redis at \(endpoint) refused authentication: \(reason). Check the user and password in the --redis URL."
        case .command(let message):
            "Redis command failed: \(message)"
        case .clusterRedirect(let command, let answer):
            "Redis answered \(command) with \"\(answer)\": this is a Redis Cluster node, and RichPush talks to one node "
                + "without following redirects. Point --redis at the node that holds the streams' hash slot, and give "
                + "the job, results and dead-letter streams one hash tag (jobs:{0}, results:{0}, dead:{0}); "
                + "see docs/architecture.md, \"Past one instance\""
        case .wrongType(let key, let type):
            "Redis key \"\(key)\" holds a \(type), not a stream; choose another stream name or delete the key"
        case .unexpectedReply(let command, let reply):
            "unexpected Redis reply to \(command): \(reply)"
        case .alreadyRunning:
            "the stream consumer is already running; create a new RedisStreamConsumer to run again"
        case .shutdownIncomplete(let count, let reason):
            "stopped with \(count) finished job(s) whose result and acknowledgement could not be written (\(reason)); "
                + "their entries stay pending and will be claimed by another consumer"
        }
    }
}
