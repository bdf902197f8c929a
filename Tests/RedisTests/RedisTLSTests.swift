import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushRedis
import TestSupport

/// `rediss://` against Debian's redis-server with only a TLS port (`--port 0 --tls-port …`) and a CA made by the test.
final class RedisTLSTests: XCTestCase {
    private var servers: [RedisTestServer] = []

    override func tearDown() {
        servers.forEach { $0.stop() }
        servers = []
    }

    private func server(_ tls: RedisTestServer.TLSSetup, persistent: Bool = false) throws -> RedisTestServer {
        let server = try RedisTestServer(persistent: persistent, tls: tls)
        servers.append(server)
        return server
    }

    private static let fakeHandler: @Sendable (Data) async -> QueueJobOutcome = { FakeJobHandler.outcome(for: $0) }

    /// The consumer's failure at start (the test fails when it starts instead).
    private func startUpFailure(_ endpoint: RedisEndpoint) async throws -> QueueError {
        let consumer = try RedisStreamConsumer(
            configuration: StreamConsumerConfiguration(endpoint: endpoint, commandTimeout: .seconds(2)),
            handler: Self.fakeHandler)
        do {
            _ = try await consumer.run()
        } catch {
            return error
        }
        XCTFail("\(endpoint): expected a refusal at start")
        throw QueueError.alreadyRunning
    }

    func testTwoConsumersOnATLSOnlyRedisAnswerEveryJobExactlyOnce() async throws {
        let server = try server(try .make())
        let client = RedisTestClient(server.endpoint)
        let jobIDs = try await client.addJobs(200)
        let consumers = try (1...2).map { index in
            try RedisStreamConsumer(
                configuration: StreamConsumerConfiguration(
                    endpoint: server.endpoint, consumer: "c\(index)", concurrency: 8, blockTimeout: .milliseconds(200)),
                handler: Self.fakeHandler)
        }
        let runs = consumers.map { consumer in Task { try await consumer.run() } }
        try await waitUntil(timeout: .seconds(30), "200 results") { try await client.length("richpush:results") >= 200 }
        consumers.forEach { $0.stop() }
        var handled = 0
        for run in runs { handled += try await run.value.jobsHandled }

        let results = try await client.resultJobIDs()
        XCTAssertEqual(results.count, 200, "exactly one result per job")
        XCTAssertEqual(Set(results), Set(jobIDs))
        XCTAssertEqual(handled, 200)
        let pending = try await client.pendingCount()
        XCTAssertEqual(pending, 0)
        // The TLS port is the only one: a plain connection to it is no Redis session.
        var plain = server.endpoint
        plain.tls = nil
        XCTAssertThrowsError(try RedisConnection(endpoint: plain, timeout: .seconds(2)).connect())
    }

    func testClientCertificateIsSentWhenTheServerRequiresOne() async throws {
        let setup = try RedisTestServer.TLSSetup.make(requiringClientCertificate: true)
        let server = try server(setup)
        let client = RedisTestClient(server.endpoint)
        try await client.addJobs(20, prefix: "mtls")
        let consumer = try RedisStreamConsumer(
            configuration: StreamConsumerConfiguration(endpoint: server.endpoint, blockTimeout: .milliseconds(200)),
            handler: Self.fakeHandler)
        let run = Task { try await consumer.run() }
        try await waitUntil(timeout: .seconds(20), "20 results") { try await client.length("richpush:results") == 20 }
        consumer.stop()
        let summary = try await run.value
        XCTAssertEqual(summary.resultsWritten, 20)

        // The lease (the object-storage cache's single-flight) runs over the same client.
        let lease = RedisLease(endpoint: server.endpoint)
        try await lease.checkConnection()
        let token = try await lease.acquire("richpush:lease:k", timeToLive: .seconds(5))
        XCTAssertEqual(token?.isEmpty, false, "a lease taken over TLS")
        let second = try await lease.acquire("richpush:lease:k", timeToLive: .seconds(5))
        XCTAssertNil(second, "held by the first")
        await lease.release("richpush:lease:k", token: token ?? "")
        let third = try await lease.acquire("richpush:lease:k", timeToLive: .seconds(5))
        XCTAssertEqual(third?.isEmpty, false, "released over TLS")

        var withoutCertificate = server.endpoint
        withoutCertificate.tls?.clientCertificateFile = nil
        withoutCertificate.tls?.clientKeyFile = nil
        let error = try await startUpFailure(withoutCertificate)
        XCTAssertEqual(error.code, "tls_handshake_failed", error.description)
        XCTAssertTrue(error.description.contains("requires a client certificate"), error.description)
    }

    func testEveryRefusedCertificateNamesItsCause() async throws {
        let setup = try RedisTestServer.TLSSetup.make()
        let good = try server(setup)

        let otherAuthority = try TestCertificateAuthority(name: "Another CA")
        var unknownCA = good.endpoint
        unknownCA.tls?.certificateAuthorityFile = otherAuthority.certificatePath

        let expired = try server(RedisTestServer.TLSSetup(
            authority: setup.authority,
            server: try setup.authority.issue(commonName: "localhost", alternativeNames: ["DNS:localhost", "IP:127.0.0.1"], expired: true)))
        let otherHost = try server(RedisTestServer.TLSSetup(
            authority: setup.authority,
            server: try setup.authority.issue(commonName: "cache.example.com", alternativeNames: ["DNS:cache.example.com"])))
        var byName = otherHost.endpoint
        byName.host = "localhost"

        let plain = try RedisTestServer()
        servers.append(plain)
        var tlsToPlain = plain.endpoint
        tlsToPlain.tls = setup.clientSettings

        let cases: [(RedisEndpoint, String)] = [
            (unknownCA, "signed by an unknown CA"),
            (expired.endpoint, "certificate has expired"),
            (otherHost.endpoint, "not for 127.0.0.1"),
            (byName, "not for localhost"),
            (tlsToPlain, "does not speak TLS on this port"),
        ]
        for (endpoint, cause) in cases {
            let error = try await startUpFailure(endpoint)
            XCTAssertEqual(error.code, "tls_handshake_failed", "\(cause): \(error)")
            XCTAssertTrue(error.description.contains(cause), "\(cause): \(error)")
            XCTAssertTrue(error.description.contains("127.0.0.1:") || error.description.contains("localhost:"), "the address: \(error)")
        }

        // The same certificates pass when the check is turned off (a test setup's --redis-tls-insecure).
        var insecure = expired.endpoint
        insecure.tls?.verifiesServer = false
        insecure.tls?.certificateAuthorityFile = otherAuthority.certificatePath
        let reply = try await RedisTestClient(insecure).command("PING")
        XCTAssertEqual(reply.text, "PONG")
    }

    func testACLUserAndPasswordTravelInsideTLS() async throws {
        let server = try RedisTestServer(
            extraArguments: ["--user", "default", "off", "--user", "worker", "on", ">worker-pw", "~*", "&*", "+@all"],
            tls: try .make())
        servers.append(server)
        var endpoint = try RedisEndpoint(parsing: "rediss://worker:worker-pw@127.0.0.1:\(server.port)/2")
        endpoint.tls = server.endpoint.tls
        let client = RedisTestClient(endpoint)
        try await client.addJobs(3, prefix: "acl")
        let consumer = try RedisStreamConsumer(
            configuration: StreamConsumerConfiguration(endpoint: endpoint, blockTimeout: .milliseconds(100)),
            handler: Self.fakeHandler)
        let run = Task { try await consumer.run() }
        try await waitUntil(timeout: .seconds(10), "3 results in db 2") { try await client.length("richpush:results") == 3 }
        consumer.stop()
        let summary = try await run.value
        XCTAssertEqual(summary.resultsWritten, 3)

        endpoint.password = "wrong"
        let error = try await startUpFailure(endpoint)
        XCTAssertEqual(error.code, "authentication_failed", error.description)
        XCTAssertTrue(error.description.contains("rediss://worker:***@"), error.description)
        XCTAssertFalse(error.description.contains("wrong"), "password leaked: \(error)")
    }

    func testMissingOrMismatchedFilesAreASetupErrorNamingTheFile() async throws {
        let setup = try RedisTestServer.TLSSetup.make()
        let other = try setup.authority.issue(commonName: "other", alternativeNames: ["DNS:other"])
        let cases: [(RedisTLSSettings, String)] = [
            (RedisTLSSettings(certificateAuthorityFile: "/nonexistent/ca.pem"), "/nonexistent/ca.pem"),
            (RedisTLSSettings(clientCertificateFile: setup.authority.certificatePath, clientKeyFile: "/nonexistent/key.pem"),
             "/nonexistent/key.pem"),
            (RedisTLSSettings(clientCertificateFile: setup.authority.certificatePath, clientKeyFile: other.keyPath),
             "does not belong to the certificate"),
            (RedisTLSSettings(clientKeyFile: other.keyPath), "needs its client certificate"),
        ]
        for (settings, named) in cases {
            XCTAssertThrowsError(try TLSClientContext(settings: settings)) { error in
                XCTAssertEqual((error as? QueueError)?.code, "tls_setup_failed", "\(error)")
                XCTAssertTrue("\(error)".contains(named), "\(error)")
                XCTAssertEqual((error as? QueueError)?.isLocalFault, true)
            }
        }
    }
}
