import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushRedis
import TestSupport

/// Past one stream: a consumer reading several streams at once, each with its own group and claims, and what a
/// Redis Cluster node answers a consumer that is pointed at the wrong node or spans hash slots.
final class StreamShardingTests: XCTestCase {
    private var servers: [RedisTestServer] = []

    override func tearDown() {
        servers.forEach { $0.stop() }
        servers = []
    }

    private func server(_ arguments: [String] = []) throws -> RedisTestServer {
        let server = try RedisTestServer(extraArguments: arguments)
        servers.append(server)
        return server
    }

    private static let fakeHandler: @Sendable (Data) async -> QueueJobOutcome = { FakeJobHandler.outcome(for: $0) }
    private static let streams = (0..<4).map { "jobs:{\($0)}" }

    func testOneConsumerReadsFourStreamsAndClaimsWhatIsLeftPendingOnEach() async throws {
        let server = try server()
        let client = RedisTestClient(server.endpoint)
        var jobIDs: [String] = []
        for stream in Self.streams {
            try await client.command("XGROUP", "CREATE", stream, "richpush", "0", "MKSTREAM")
            jobIDs += try await client.addJobs(25, prefix: stream, stream: stream)
            // A consumer that dies holding five entries of this stream, unacknowledged.
            let stolen = try StreamEntry.readGroupReply(try await client.command(
                "XREADGROUP", "GROUP", "richpush", "ghost", "COUNT", "5", "STREAMS", stream, ">"))
            XCTAssertEqual(stolen.map(\.stream), Array(repeating: stream, count: 5))
        }
        let consumer = try RedisStreamConsumer(
            configuration: StreamConsumerConfiguration(
                endpoint: server.endpoint, streams: Self.streams, consumer: "worker", concurrency: 8,
                claimIdle: .milliseconds(300), blockTimeout: .milliseconds(100)),
            handler: Self.fakeHandler)
        let run = Task { try await consumer.run() }
        try await waitUntil(timeout: .seconds(20), "100 results") { try await client.length("richpush:results") >= 100 }
        let backlog = try await consumer.backlog()
        consumer.stop()
        let summary = try await run.value

        XCTAssertEqual(summary.claimed, 20, "five left pending on each of the four streams")
        XCTAssertEqual(summary.jobsHandled, 100)
        let results = try await client.entries("richpush:results")
        XCTAssertEqual(results.count, 100, "exactly one result per job")
        XCTAssertEqual(Set(results.map { String(decoding: $0.value(of: "job_id") ?? Data(), as: UTF8.self) }), Set(jobIDs))
        for result in results {
            // Each result names the stream its entry came from, since entry ids are unique only per stream.
            let jobID = String(decoding: result.value(of: "job_id") ?? Data(), as: UTF8.self)
            let stream = String(decoding: result.value(of: "stream") ?? Data(), as: UTF8.self)
            XCTAssertTrue(jobID.hasPrefix(stream + "-"), "\(jobID) from \(stream)")
        }
        for stream in Self.streams {
            let pending = try await client.pendingCount(stream: stream)
            XCTAssertEqual(pending, 0, stream)
        }
        XCTAssertEqual(backlog.pending, 0, "the backlog sums the streams")
        XCTAssertEqual(backlog.lag, 0)
    }

    func testAConsumerOnTheWrongClusterNodeStopsAtStartNamingTheClusterSetup() async throws {
        let owner = try server(["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"])
        let other = try server(["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"])
        let ownerClient = RedisTestClient(owner.endpoint)
        let otherClient = RedisTestClient(other.endpoint)
        try await ownerClient.command("CLUSTER", "ADDSLOTSRANGE", "0", "16383")
        try await otherClient.command("CLUSTER", "MEET", "127.0.0.1", String(owner.port))
        try await waitUntil(timeout: .seconds(20), "the second node to learn the slots") {
            let info = try await otherClient.command("CLUSTER", "INFO").text ?? ""
            let ownerInfo = try await ownerClient.command("CLUSTER", "INFO").text ?? ""
            return info.contains("cluster_state:ok") && ownerInfo.contains("cluster_state:ok")
        }

        // The node that does not hold the slot answers MOVED: one clear error at start, not a retry loop.
        let misplaced = try RedisStreamConsumer(
            configuration: StreamConsumerConfiguration(endpoint: other.endpoint), handler: Self.fakeHandler)
        do {
            _ = try await misplaced.run()
            XCTFail("expected a cluster redirect")
        } catch {
            XCTAssertEqual(error.code, "cluster_redirect", error.description)
            XCTAssertTrue(error.description.contains("MOVED"), error.description)
            XCTAssertTrue(error.description.contains("hash tag"), error.description)
            XCTAssertTrue(error.isPermanent)
        }

        // Streams of different hash slots in one consumer: CROSSSLOT, named the same way.
        let spanning = try RedisStreamConsumer(
            configuration: StreamConsumerConfiguration(
                endpoint: owner.endpoint, streams: ["jobs:{0}", "jobs:{1}"], resultsStream: "results:{0}",
                deadLetterStream: "dead:{0}", blockTimeout: .milliseconds(100)),
            handler: Self.fakeHandler)
        do {
            _ = try await spanning.run()
            XCTFail("expected CROSSSLOT")
        } catch {
            XCTAssertEqual(error.code, "cluster_redirect", error.description)
            XCTAssertTrue(error.description.contains("CROSSSLOT"), error.description)
        }

        // The documented setup: the job, results and dead-letter streams share one hash tag, on the node that holds it.
        let tagged = ["jobs:{0}:high", "jobs:{0}:low"]
        for stream in tagged { try await ownerClient.addJobs(5, prefix: stream, stream: stream) }
        let placed = try RedisStreamConsumer(
            configuration: StreamConsumerConfiguration(
                endpoint: owner.endpoint, streams: tagged, group: "tagged", resultsStream: "results:{0}",
                deadLetterStream: "dead:{0}", blockTimeout: .milliseconds(100)),
            handler: Self.fakeHandler)
        let run = Task { try await placed.run() }
        try await waitUntil(timeout: .seconds(20), "10 results") { try await ownerClient.length("results:{0}") == 10 }
        placed.stop()
        let summary = try await run.value
        XCTAssertEqual(summary.resultsWritten, 10)
    }
}
