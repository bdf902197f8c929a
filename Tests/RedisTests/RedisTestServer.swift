import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushCache
@testable import RichPushRedis
@testable import RichPushHTTP
@testable import RichPushPipeline
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

enum RedisTestServerError: Error, CustomStringConvertible {
    case startFailed(String)

    var description: String {
        switch self {
        case .startFailed(let detail): "redis-server did not start: \(detail)"
        }
    }
}

/// A throwaway `redis-server` on a free loopback port, with its own temporary directory; TLS-only when given a
/// ``TLSSetup`` (`--port 0 --tls-port …`). Missing `redis-server` is a `TestTool.Missing` error (the tests fail
/// loudly, never skip).
final class RedisTestServer {
    /// The server's certificate and who signed it; a client certificate makes the server require one.
    struct TLSSetup {
        let authority: TestCertificateAuthority
        let server: TestCertificateAuthority.Issued
        var client: TestCertificateAuthority.Issued?

        /// A CA and a server certificate for 127.0.0.1 and localhost.
        static func make(requiringClientCertificate: Bool = false) throws -> TLSSetup {
            let authority = try TestCertificateAuthority()
            let server = try authority.issue(commonName: "localhost", alternativeNames: ["DNS:localhost", "IP:127.0.0.1"])
            let client = requiringClientCertificate
                ? try authority.issue(commonName: "richpush-worker", alternativeNames: ["DNS:richpush-worker"]) : nil
            return TLSSetup(authority: authority, server: server, client: client)
        }

        /// What a client that trusts this CA (and holds the client certificate, if any) connects with.
        var clientSettings: RedisTLSSettings {
            RedisTLSSettings(
                certificateAuthorityFile: authority.certificatePath, clientCertificateFile: client?.certificatePath,
                clientKeyFile: client?.keyPath)
        }
    }

    let port: Int
    let directory: URL
    let tls: TLSSetup?
    private let persistent: Bool
    private let extraArguments: [String]
    private var process: Process?

    init(persistent: Bool = false, extraArguments: [String] = [], tls: TLSSetup? = nil) throws {
        self.persistent = persistent
        self.extraArguments = extraArguments
        self.tls = tls
        // A cluster node also listens on its port + 10,000 (the cluster bus), so redis-server refuses a port above
        // 55,535, and the kernel hands out ports up to 60,999: ask again until one fits.
        var port = try Self.freePort()
        for _ in 0..<100 where extraArguments.contains("--cluster-enabled") && port > 55_535 { port = try Self.freePort() }
        self.port = port
        directory = try TemporaryDirectory.make("redis")
        try start()
    }

    var endpoint: RedisEndpoint { RedisEndpoint(host: "127.0.0.1", port: port, tls: tls?.clientSettings) }

    /// Starts the server (again, on the same port and directory) and waits until it answers PING.
    func start() throws {
        let executable = try TestTool.redisServer.path()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        var arguments = [
            "--bind", "127.0.0.1", "--save", "", "--dir", directory.path,
            "--daemonize", "no", "--logfile", directory.appendingPathComponent("redis.log").path,
        ]
        // appendfsync always: a SIGKILLed server keeps every write it acknowledged.
        arguments += persistent ? ["--appendonly", "yes", "--appendfsync", "always"] : ["--appendonly", "no"]
        if let tls {
            arguments += ["--port", "0"] + tls.authority.redisServerArguments(
                tlsPort: port, certificate: tls.server, requiringClientCertificates: tls.client != nil)
        } else {
            arguments += ["--port", String(port)]
        }
        process.arguments = arguments + extraArguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process

        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if !process.isRunning {
                throw RedisTestServerError.startFailed("exited with \(process.terminationStatus); see \(directory.path)/redis.log")
            }
            if answersPing() { return }
            usleep(10_000)
        }
        throw RedisTestServerError.startFailed("no PING answer on port \(port) within 10 s")
    }

    /// SIGKILL: no shutdown, no final save.
    func kill() {
        guard let process, process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    func stop() {
        kill()
        TemporaryDirectory.remove(directory)
    }

    deinit { stop() }

    /// Any reply (even NOAUTH), or a TLS handshake the client refuses (a test's expired certificate), proves the
    /// server is up.
    private func answersPing() -> Bool {
        let connection = RedisConnection(endpoint: endpoint, timeout: .seconds(1))
        do throws(QueueError) {
            try connection.connect()
            return true
        } catch {
            switch error {
            case .authentication, .tlsHandshake: return true
            default: return false
            }
        }
    }

    /// Binds port 0 on loopback and returns what the kernel chose.
    static func freePort() throws -> Int {
        let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketDescriptor >= 0 else { throw RedisTestServerError.startFailed("socket() failed") }
        defer { close(socketDescriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketDescriptor, $0, length) }
        }
        guard bound == 0 else { throw RedisTestServerError.startFailed("bind() failed") }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketDescriptor, $0, &length) }
        }
        guard named == 0 else { throw RedisTestServerError.startFailed("getsockname() failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
