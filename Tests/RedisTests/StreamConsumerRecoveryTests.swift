import Foundation
import Synchronization
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushCache
@testable import RichPushRedis
@testable import RichPushHTTP
@testable import RichPushPipeline
import TestSupport

/// Tests that need a server of their own: restarts, passwords, ACL users.
final class StreamConsumerRecoveryTests: XCTestCase {
    private var server: RedisTestServer?

    override func tearDown() {
        server?.stop()
        server = nil
    }

    private static let fakeHandler: @Sendable (Data) async -> QueueJobOutcome = { FakeJobHandler.outcome(for: $0) }

    func testConsumersReconnectAfterRedisRestartAndAnswerEveryJobExactlyOnce() async throws {
        try await killAndRestartRedisDuringARun(tls: nil)
    }

    func testConsumersOverTLSReconnectAfterRedisRestartAndAnswerEveryJobExactlyOnce() async throws {
        try await killAndRestartRedisDuringARun(tls: try .make())
    }

    /// Two consumers, 600 jobs, and a SIGKILL of the (persistent) server in the middle: after the restart every job
    /// has exactly one result and nothing is pending. A write whose answer the crash swallowed was applied or not;
    /// the writer asks before writing again. `claimIdle` is 5 s, longer than the outage, so that no consumer claims
    /// the other's finished entries: what this test checks is the lost answer, not the claim.
    private func killAndRestartRedisDuringARun(tls: RedisTestServer.TLSSetup?) async throws {
        let server = try RedisTestServer(persistent: true, tls: tls)
        self.server = server
        let client = RedisTestClient(server.endpoint)
        let jobIDs = try await client.addJobs(600)
        let log = RecordingLogSink()
        let consumers = try (1...2).map { index in
            try RedisStreamConsumer(
                configuration: StreamConsumerConfiguration(
                    endpoint: server.endpoint, consumer: "c\(index)", concurrency: 4, claimIdle: .seconds(5),
                    blockTimeout: .milliseconds(200), log: log
                )
            ) { job in
                // The scenario's slow work, not a wait: ~200 jobs/s over both consumers, so the kill lands mid-run
                // with jobs in flight and writes under way (a gate would stop the writes the kill has to interrupt).
                try? await Task.sleep(for: .milliseconds(20))
                return FakeJobHandler.outcome(for: job)
            }
        }
        let runs = consumers.map { consumer in Task { try await consumer.run() } }
        try await waitUntil(timeout: .seconds(20), "the first 100 results") {
            try await client.length("richpush:results") >= 100
        }
        server.kill()
        // The outage lasts until both readers have lost the server and a finished job's result could not be written.
        try await waitUntil(timeout: .seconds(10), "both readers and a writer to retry", interval: .milliseconds(5)) {
            let lines = log.lines
            return ["c1", "c2"].allSatisfy { consumer in
                lines.contains { $0.hasPrefix("warning redis_retry consumer=\(consumer) message=reader: ") }
            } && lines.contains { $0.hasPrefix("warning redis_retry") && $0.contains("writer: ") }
        }
        try server.start()
        try await waitUntil(timeout: .seconds(60), "all 600 job ids in the results") {
            // The test client's own connection broke in the restart too; it reconnects on the next call.
            guard let ids = try? await client.resultJobIDs() else { return false }
            return Set(ids).count == 600
        }
        try await waitUntil(timeout: .seconds(20), "nothing pending") { (try? await client.pendingCount()) == 0 }
        consumers.forEach { $0.stop() }
        var summaries: [ConsumerSummary] = []
        for run in runs { summaries.append(try await run.value) }

        let results = try await client.resultJobIDs()
        XCTAssertEqual(Set(results), Set(jobIDs), "no job lost")
        XCTAssertEqual(results.count, 600, "no job answered twice")
        let pending = try await client.pendingCount()
        XCTAssertEqual(pending, 0, "every job acked")
        XCTAssertGreaterThanOrEqual(summaries.map(\.reconnects).reduce(0, +), 2, "both consumers reconnected")
        let lines = log.lines
        XCTAssertTrue(lines.contains { $0.hasPrefix("warning redis_retry") && $0.contains("reader: ") }, "\(lines.prefix(5))")
        // Jobs in flight at the crash finished during the outage; their results waited and were written afterwards.
        XCTAssertTrue(lines.contains { $0.hasPrefix("warning redis_retry") && $0.contains("writer: ") }, "\(lines.prefix(5))")
        print("QUEUE-METRICS restart (\(tls == nil ? "plain" : "TLS")): \(results.count) results for 600 jobs, "
              + "reconnects \(summaries.map(\.reconnects)), not written again \(summaries.map(\.alreadyAnswered))")
    }

    func testWrongCredentialsGiveOneClearErrorAtStartUp() async throws {
        let server = try RedisTestServer(extraArguments: ["--requirepass", "right-password"])
        self.server = server
        for url in ["redis://:wrong-password@127.0.0.1:\(server.port)", "redis://127.0.0.1:\(server.port)"] {
            let consumer = try RedisStreamConsumer(
                configuration: StreamConsumerConfiguration(endpoint: try RedisEndpoint(parsing: url)),
                handler: Self.fakeHandler
            )
            let started = ContinuousClock.now
            do {
                _ = try await consumer.run()
                XCTFail("\(url): expected an authentication error")
            } catch {
                XCTAssertEqual(error.code, "authentication_failed", "\(url): \(error)")
                XCTAssertFalse(error.description.contains("wrong-password"), "password leaked: \(error)")
            }
            XCTAssertLessThan(ContinuousClock.now - started, .seconds(2), "no retry loop on bad credentials")
        }
    }

    func testACLUserPasswordAndDatabaseFromTheURL() async throws {
        let server = try RedisTestServer(extraArguments: [
            "--user", "default", "off", "--user", "worker", "on", ">worker-pw", "~*", "&*", "+@all",
        ])
        self.server = server
        let endpoint = try RedisEndpoint(parsing: "redis://worker:worker-pw@127.0.0.1:\(server.port)/3")
        let database3 = RedisTestClient(endpoint)
        try await database3.addJobs(5, prefix: "acl")
        let consumer = try RedisStreamConsumer(
            configuration: StreamConsumerConfiguration(endpoint: endpoint, blockTimeout: .milliseconds(200)),
            handler: Self.fakeHandler
        )
        let run = Task { try await consumer.run() }
        try await waitUntil(timeout: .seconds(10), "5 results in db 3") {
            try await database3.length("richpush:results") == 5
        }
        consumer.stop()
        let summary = try await run.value
        XCTAssertEqual(summary.resultsWritten, 5)
        let database0 = RedisTestClient(try RedisEndpoint(parsing: "redis://worker:worker-pw@127.0.0.1:\(server.port)/0"))
        let length0 = try await database0.length("richpush:results")
        XCTAssertEqual(length0, 0, "nothing written to database 0")

        let wrongUser = try RedisStreamConsumer(
            configuration: StreamConsumerConfiguration(
                endpoint: try RedisEndpoint(parsing: "redis://worker:nope@127.0.0.1:\(server.port)/3")
            ),
            handler: Self.fakeHandler
        )
        do {
            _ = try await wrongUser.run()
            XCTFail("expected WRONGPASS")
        } catch {
            XCTAssertEqual(error.code, "authentication_failed")
            XCTAssertTrue(error.description.contains("redis://worker:***@"), error.description)
        }
    }
}

extension StreamConsumerRecoveryTests {
    func testStopWhileRedisIsDownGivesUpAfterTheShutdownTimeout() async throws {
        let server = try RedisTestServer()
        self.server = server
        let client = RedisTestClient(server.endpoint)
        try await client.addJobs(2)
        let started = Mutex(0)
        let jobsEnd = Gate()
        defer { jobsEnd.open() }
        let consumer = try RedisStreamConsumer(
            configuration: StreamConsumerConfiguration(
                endpoint: server.endpoint, consumer: "c1", blockTimeout: .milliseconds(100),
                shutdownTimeout: .milliseconds(500)
            )
        ) { job in
            started.withLock { $0 += 1 }
            await jobsEnd.wait()
            return FakeJobHandler.outcome(for: job)
        }
        let run = Task { try await consumer.run() }
        try await waitUntil(timeout: .seconds(10), "2 jobs in flight") { started.withLock { $0 } == 2 }
        server.kill()
        consumer.stop()
        let stoppedAt = ContinuousClock.now
        jobsEnd.open()   // the jobs finish with Redis down: their results cannot be written
        do {
            _ = try await run.value
            XCTFail("results could not be written, so run() must not report success")
        } catch let error as QueueError {
            guard case .shutdownIncomplete(let unacknowledged, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(unacknowledged, 2)
            XCTAssertEqual(error.code, "shutdown_incomplete")
        }
        XCTAssertLessThan(ContinuousClock.now - stoppedAt, .seconds(5), "gave up near the shutdown timeout")
    }

    func testLostGroupIsRecreated() async throws {
        let server = try RedisTestServer()
        self.server = server
        let client = RedisTestClient(server.endpoint)
        try await client.addJobs(5, prefix: "before")
        let consumer = try RedisStreamConsumer(
            configuration: StreamConsumerConfiguration(
                endpoint: server.endpoint, consumer: "c1", blockTimeout: .milliseconds(100)
            ),
            handler: { FakeJobHandler.outcome(for: $0) }
        )
        let run = Task { try await consumer.run() }
        try await waitUntil(timeout: .seconds(10), "5 results") { try await client.length("richpush:results") == 5 }
        // What a server restart without persistence of the group looks like to XREADGROUP: NOGROUP.
        try await client.command("XGROUP", "DESTROY", "richpush:jobs", "richpush")
        try await client.addJobs(3, prefix: "after")
        try await waitUntil(timeout: .seconds(10), "results for the new jobs") {
            Set(try await client.resultJobIDs()).isSuperset(of: ["after-0", "after-1", "after-2"])
        }
        consumer.stop()
        _ = try await run.value
        let pending = try await client.pendingCount()
        XCTAssertEqual(pending, 0)
    }
}
