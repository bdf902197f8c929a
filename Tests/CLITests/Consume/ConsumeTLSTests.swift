import Foundation
import TestSupport
import XCTest

/// `richpush consume` on a TLS-only redis-server (`--port 0 --tls-port …`) with a CA made by the test: the
/// `--redis-tls-*` options, and a clear exit 2 at start for every certificate it must refuse.
final class ConsumeTLSTests: XCTestCase {
    private var authority: TestCertificateAuthority!
    private var servers: [Process] = []
    private var directory: URL!

    override func setUpWithError() throws {
        authority = try TestCertificateAuthority()
        directory = try TemporaryDirectory.make("consume-tls")
    }

    override func tearDownWithError() throws {
        for server in servers {
            server.terminate()
            server.waitUntilExit()
        }
        TemporaryDirectory.remove(directory)
    }

    /// A redis-server with only a TLS port, serving `certificate` (or, when nil, only a plain port); returns the port.
    /// `requiringClientCertificates` makes it refuse clients without a certificate from the test's CA.
    private func startServer(
        _ certificate: TestCertificateAuthority.Issued?, requiringClientCertificates: Bool = false
    ) throws -> UInt16 {
        let port = try LoopbackPort.free()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try TestTool.redisServer.path())
        var arguments = ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", directory.path]
        if let certificate {
            arguments += ["--port", "0"] + authority.redisServerArguments(
                tlsPort: Int(port), certificate: certificate, requiringClientCertificates: requiringClientCertificates)
        } else {
            arguments += ["--port", String(port)]
        }
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        servers.append(process)
        try LoopbackPort.waitUntilListening(on: port)
        return port
    }

    private func localhostCertificate(expired: Bool = false) throws -> TestCertificateAuthority.Issued {
        try authority.issue(commonName: "localhost", alternativeNames: ["DNS:localhost", "IP:127.0.0.1"], expired: expired)
    }

    /// redis-cli over TLS, trusting the test's CA (or, `insecure`, any certificate), with `client`'s certificate.
    @discardableResult
    private func redis(
        port: UInt16, insecure: Bool = false, client: TestCertificateAuthority.Issued? = nil, _ arguments: [String]
    ) throws -> String {
        var options = ["--tls"] + (insecure ? ["--insecure"] : ["--cacert", authority.certificatePath])
        if let client { options += ["--cert", client.certificatePath, "--key", client.keyPath] }
        let result = try runTool(try TestTool.redisCLI.path(), options + ["-p", String(port), "--raw"] + arguments)
        return result.output
    }

    private func consume(port: UInt16, scheme: String = "rediss", _ options: [String]) -> [String] {
        ["consume", "--redis", "\(scheme)://127.0.0.1:\(port)/0", "--stream", "jobs", "--results-stream", "results",
         "--cache-dir", directory.appendingPathComponent("cache").path,
         "--public-base-url", "https://cdn.example.com/richpush"] + options
    }

    /// Two workers with client certificates on a Redis that requires them: 200 jobs, each answered exactly once.
    func testTwoWorkersWithClientCertificatesAnswerEveryJobExactlyOnce() throws {
        let port = try startServer(try localhostCertificate(), requiringClientCertificates: true)
        let client = try authority.issue(commonName: "richpush-worker", alternativeNames: ["DNS:richpush-worker"])
        let ids = (0..<200).map { "t\($0)" }
        // One redis-cli reads all 200 XADDs from its standard input.
        let script = ids.map { #"XADD jobs * job "{\"id\":\"\#($0)\",\"payload\":{\"aps\":{\"alert\":\"hi\"}}}""# }
        let file = directory.appendingPathComponent("jobs.redis")
        try (script.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        let load = Process()
        load.executableURL = URL(fileURLWithPath: try TestTool.redisCLI.path())
        load.arguments = ["--tls", "--cacert", authority.certificatePath, "--cert", client.certificatePath,
                          "--key", client.keyPath, "-p", String(port)]
        load.standardInput = try FileHandle(forReadingFrom: file)
        load.standardOutput = FileHandle.nullDevice
        try load.run()
        load.waitUntilExit()
        func length(_ stream: String) throws -> Int {
            Int(try redis(port: port, client: client, ["XLEN", stream]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }
        XCTAssertEqual(try length("jobs"), 200)

        let tlsOptions = ["--redis-tls-ca-file", authority.certificatePath, "--redis-tls-certificate", client.certificatePath,
                          "--redis-tls-key", client.keyPath]
        var workers: [(Process, Pipe)] = []
        for index in 0..<2 {
            let worker = CommandRunner.makeProcess(
                consume(port: port, tlsOptions + ["--consumer", "w\(index)"]), environment: [:], workingDirectory: nil)
            let errors = Pipe()
            worker.standardError = errors
            worker.standardOutput = FileHandle.nullDevice
            try worker.run()
            workers.append((worker, errors))
        }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, try length("results") < 200 { usleep(10_000) }
        var logs = ""
        for (worker, errors) in workers {
            kill(worker.processIdentifier, SIGTERM)
            worker.waitUntilExit()
            let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            XCTAssertEqual(worker.terminationStatus, 0, log)
            XCTAssertTrue(log.contains("rediss://127.0.0.1:\(port)/0"), "the start line names the TLS URL: \(log)")
            logs += log
        }
        let answered = try redis(port: port, client: client, ["XRANGE", "results", "-", "+"])
            .split(separator: "\n").filter { $0.hasPrefix("{") }
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .compactMap { $0["id"] as? String }
        XCTAssertEqual(answered.count, 200, "exactly one result per job: \(logs)")
        XCTAssertEqual(Set(answered), Set(ids))
        XCTAssertTrue(try redis(port: port, client: client, ["XPENDING", "jobs", "richpush"]).hasPrefix("0"), "0 pending")
        XCTAssertFalse(logs.contains("redis_tls_insecure"), logs)
    }

    func testEveryRefusedServerExitsTwoAtStartNamingTheCause() throws {
        let trusted = ["--redis-tls-ca-file", authority.certificatePath]
        let good = try startServer(try localhostCertificate())
        let expired = try startServer(try localhostCertificate(expired: true))
        let otherHost = try startServer(try authority.issue(commonName: "cache.example.com", alternativeNames: ["DNS:cache.example.com"]))
        let plain = try startServer(nil)
        let cases: [(arguments: [String], cause: String)] = [
            (consume(port: good, []), "signed by an unknown CA"),  // the system's store does not know the test's CA
            (consume(port: expired, trusted), "certificate has expired"),
            (consume(port: otherHost, trusted), "not for 127.0.0.1"),
            (consume(port: plain, trusted), "does not speak TLS on this port"),
            (consume(port: good, ["--redis-tls-ca-file", "/nonexistent/ca.pem"]), "/nonexistent/ca.pem"),
        ]
        for (arguments, cause) in cases {
            let output = try CommandRunner.run(arguments)
            XCTAssertEqual(output.status, 2, "\(cause): \(output.standardError)")
            XCTAssertTrue(output.standardError.contains(cause), "\(cause): \(output.standardError)")
            XCTAssertTrue(output.standardError.contains("127.0.0.1:") || cause.hasPrefix("/"), output.standardError)
        }
        // A client key without its certificate: a usage mistake, named before anything connects.
        let keyOnly = try CommandRunner.run(consume(port: good, trusted + ["--redis-tls-key", "/etc/richpush/worker.key"]))
        XCTAssertEqual(keyOnly.status, 2, keyOnly.standardError)
        XCTAssertTrue(keyOnly.standardError.contains("--redis-tls-certificate"), keyOnly.standardError)
        XCTAssertTrue(keyOnly.standardError.contains("needs its client certificate"), keyOnly.standardError)
        // The TLS options with a plain URL: the connection they were meant to protect is not TLS.
        let mistaken = try CommandRunner.run(consume(port: plain, scheme: "redis", trusted))
        XCTAssertEqual(mistaken.status, 2, mistaken.standardError)
        XCTAssertTrue(mistaken.standardError.contains("rediss://"), mistaken.standardError)
    }

    func testInsecureSkipsTheCheckAndWarnsAtStart() throws {
        let port = try startServer(try localhostCertificate(expired: true))
        try redis(port: port, insecure: true, ["XADD", "jobs", "*", "job", #"{"id":"i0","payload":{"aps":{"alert":"hi"}}}"#])
        let consumer = CommandRunner.makeProcess(consume(port: port, ["--redis-tls-insecure"]), environment: [:], workingDirectory: nil)
        let errors = Pipe()
        consumer.standardError = errors
        consumer.standardOutput = FileHandle.nullDevice
        try consumer.run()
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, try redis(port: port, insecure: true, ["XLEN", "results"]).trimmingCharacters(in: .whitespacesAndNewlines) != "1" {
            usleep(10_000)
        }
        kill(consumer.processIdentifier, SIGTERM)
        consumer.waitUntilExit()
        let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(consumer.terminationStatus, 0, log)
        XCTAssertEqual(try redis(port: port, insecure: true, ["XLEN", "results"]).trimmingCharacters(in: .whitespacesAndNewlines), "1", log)
        let warning = log.split(separator: "\n").first { $0.contains("\"redis_tls_insecure\"") }
        XCTAssertNotNil(warning, log)
        XCTAssertTrue(warning?.contains("\"warning\"") == true, log)
    }
}
