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

final class StreamConsumerTests: XCTestCase {
    private var server: RedisTestServer!
    private var client: RedisTestClient!

    override func setUpWithError() throws {
        server = try RedisTestServer()
        client = RedisTestClient(server.endpoint)
    }

    override func tearDown() {
        server?.stop()
        server = nil
        client = nil
    }

    private func configuration(
        consumer: String, concurrency: Int = 16, claimIdle: Duration = .seconds(60), maximumDeliveries: Int = 5
    ) -> StreamConsumerConfiguration {
        StreamConsumerConfiguration(
            endpoint: server.endpoint, consumer: consumer, concurrency: concurrency, claimIdle: claimIdle,
            maximumDeliveries: maximumDeliveries, blockTimeout: .milliseconds(200)
        )
    }

    private static let fakeHandler: @Sendable (Data) async -> QueueJobOutcome = { FakeJobHandler.outcome(for: $0) }

    private func start(_ consumer: RedisStreamConsumer) -> Task<ConsumerSummary, any Error> {
        Task { try await consumer.run() }
    }

    func testThreeConsumersTakeTwoThousandJobsExactlyOnce() async throws {
        let jobIDs = try await client.addJobs(2_000)
        let consumers = try (1...3).map { index in
            try RedisStreamConsumer(configuration: configuration(consumer: "c\(index)"), handler: Self.fakeHandler)
        }
        let runs = consumers.map(start)
        try await waitUntil(timeout: .seconds(60), "2,000 results") { try await client.length("richpush:results") >= 2_000 }
        consumers.forEach { $0.stop() }
        var summaries: [ConsumerSummary] = []
        for run in runs { summaries.append(try await run.value) }

        let consumerList = try await client.command("XINFO", "CONSUMERS", "richpush:jobs", "richpush")
        XCTAssertEqual(consumerList.elements?.count, 0, "cleanly stopped consumers leave the group: \(consumerList)")

        let results = try await client.resultJobIDs()
        XCTAssertEqual(results.count, 2_000, "no redelivery can happen without a crash, so exactly one result per job")
        XCTAssertEqual(Set(results), Set(jobIDs))
        let awaited1 = try await client.pendingCount()
        XCTAssertEqual(awaited1, 0)
        let awaited2 = try await client.entries("richpush:results").first
        let first = try XCTUnwrap(awaited2)
        let result = try XCTUnwrap(first.value(of: "result"))
        let id = String(decoding: try XCTUnwrap(first.value(of: "job_id")), as: UTF8.self)
        XCTAssertEqual(String(decoding: result, as: UTF8.self), #"{"id":"\#(id)","status":"ok"}"#)
        XCTAssertNotNil(first.value(of: "entry_id"))

        let handled = summaries.map(\.jobsHandled).reduce(0, +)
        let roundTrips = summaries.map(\.roundTrips).reduce(0, +)
        let replies = summaries.map(\.replies).reduce(0, +)
        XCTAssertEqual(handled, 2_000)
        XCTAssertEqual(summaries.map(\.resultsWritten).reduce(0, +), 2_000)
        // Batched reads and batched MULTI/XADD/XACK/EXEC writes: well under one round trip per job.
        XCTAssertLessThan(roundTrips, handled, "round trips \(roundTrips) for \(handled) jobs")
        print("QUEUE-METRICS 3 consumers, 2000 jobs: round trips \(roundTrips) (\(Double(roundTrips) / 2_000) per job), "
              + "replies \(replies), per consumer \(summaries.map(\.jobsHandled))")
    }

    func testEntriesOfADeadConsumerAreClaimedAfterClaimIdle() async throws {
        try await client.command("XGROUP", "CREATE", "richpush:jobs", "richpush", "0", "MKSTREAM")
        let jobIDs = try await client.addJobs(300)
        let started = ContinuousClock.now
        // The "ghost" reads 100 entries and dies without acknowledging them (what SIGKILL leaves behind).
        let stolen = try StreamEntry.readGroupReply(try await client.command(
            "XREADGROUP", "GROUP", "richpush", "ghost", "COUNT", "100", "STREAMS", "richpush:jobs", ">"
        ))
        XCTAssertEqual(stolen.count, 100)
        let consumers = try (1...2).map { index in
            try RedisStreamConsumer(
                configuration: configuration(consumer: "c\(index)", claimIdle: .milliseconds(500)), handler: Self.fakeHandler
            )
        }
        let runs = consumers.map(start)
        try await waitUntil(timeout: .seconds(20), "300 distinct results") {
            Set(try await client.resultJobIDs()).count == 300
        }
        let elapsed = ContinuousClock.now - started
        consumers.forEach { $0.stop() }
        var claimed = 0
        for run in runs { claimed += try await run.value.claimed }

        let awaited3 = try await client.resultJobIDs()
        XCTAssertEqual(Set(awaited3), Set(jobIDs))
        let awaited4 = try await client.resultJobIDs().count
        XCTAssertEqual(awaited4, 300)
        XCTAssertEqual(claimed, 100)
        XCTAssertGreaterThanOrEqual(elapsed, .milliseconds(500), "claimed before claimIdle passed")
        XCTAssertLessThan(elapsed, .milliseconds(500) + .seconds(5), "not claimed within claimIdle + 5 s")
        let awaited5 = try await client.pendingCount()
        XCTAssertEqual(awaited5, 0)
    }

    /// After a write whose answer was lost, only entries still pending on this consumer are written again: one the
    /// lost transaction acknowledged, or one another consumer claimed meanwhile, has its answer already.
    func testAWriteWhoseAnswerWasLostIsNotRepeated() async throws {
        try await client.command("XGROUP", "CREATE", "richpush:jobs", "richpush", "0", "MKSTREAM")
        try await client.addJobs(3)
        let read = try StreamEntry.readGroupReply(try await client.command(
            "XREADGROUP", "GROUP", "richpush", "c1", "COUNT", "3", "STREAMS", "richpush:jobs", ">"))
        XCTAssertEqual(read.count, 3)
        // What the lost transaction did to the first; what a claim did to the second.
        try await client.command("XACK", "richpush:jobs", "richpush", read[0].id)
        try await client.command("XCLAIM", "richpush:jobs", "richpush", "c2", "0", read[1].id)

        let consumer = try RedisStreamConsumer(configuration: configuration(consumer: "c1"), handler: Self.fakeHandler)
        let finished = read.map { Completion.result(entry: $0.key, jobID: $0.id, resultJSON: Data("{}".utf8), missingJobField: false) }
        let kept = try await consumer.keepingOwned(finished)
        XCTAssertEqual(kept.map(\.entry), [read[2].key])
        let summary = await consumer.currentSummary()
        XCTAssertEqual(summary.alreadyAnswered, 2)
    }

    func testOverDeliveredEntryGoesToTheDeadLetterStream() async throws {
        try await client.command("XGROUP", "CREATE", "richpush:jobs", "richpush", "0", "MKSTREAM")
        let poisonReply = try await client.command("XADD", "richpush:jobs", "*", "job", #"{"id":"poison"}"#)
        let poison = try XCTUnwrap(poisonReply.text)
        let survivorReply = try await client.command("XADD", "richpush:jobs", "*", "job", #"{"id":"survivor"}"#)
        let survivor = try XCTUnwrap(survivorReply.text)
        _ = try await client.command("XREADGROUP", "GROUP", "richpush", "ghost", "COUNT", "2", "STREAMS", "richpush:jobs", ">")
        // Four more deliveries of the poison entry, as if four consumers had crashed on it in turn.
        for attempt in 1...4 {
            _ = try await client.command("XCLAIM", "richpush:jobs", "richpush", "ghost-\(attempt)", "0", poison)
        }
        let pending = try PendingEntry.list(from: try await client.command(
            "XPENDING", "richpush:jobs", "richpush", "-", "+", "10"
        ), stream: "richpush:jobs")
        XCTAssertEqual(pending.first { $0.id == poison }?.deliveries, 5)
        XCTAssertEqual(pending.first { $0.id == survivor }?.deliveries, 1)

        let seen = Mutex<[String]>([])
        let consumer = try RedisStreamConsumer(
            configuration: configuration(consumer: "c1", claimIdle: .milliseconds(300), maximumDeliveries: 5)
        ) { job in
            let outcome = FakeJobHandler.outcome(for: job)
            seen.withLock { $0.append(outcome.jobID ?? "?") }
            return outcome
        }
        let run = start(consumer)
        try await waitUntil(timeout: .seconds(10), "dead letter and survivor result") {
            let deadCount = try await client.length("richpush:dead")
            let resultCount = try await client.length("richpush:results")
            return deadCount == 1 && resultCount == 1
        }
        consumer.stop()
        let summary = try await run.value

        let awaited9 = try await client.entries("richpush:dead").first
        let dead = try XCTUnwrap(awaited9)
        XCTAssertEqual(dead.value(of: "entry_id"), Data(poison.utf8))
        XCTAssertEqual(dead.value(of: "deliveries"), Data("5".utf8))
        XCTAssertEqual(dead.value(of: "last_consumer"), Data("ghost-4".utf8))
        XCTAssertEqual(dead.value(of: "job"), Data(#"{"id":"poison"}"#.utf8))
        XCTAssertTrue(String(decoding: dead.value(of: "error") ?? Data(), as: UTF8.self).contains("delivered 5 times"))
        let awaited10 = try await client.resultJobIDs()
        XCTAssertEqual(awaited10, ["survivor"])
        XCTAssertEqual(seen.withLock { $0 }, ["survivor"], "the poison job must not run a sixth time")
        XCTAssertEqual(summary.deadLettered, 1)
        let awaited11 = try await client.pendingCount()
        XCTAssertEqual(awaited11, 0, "the dead-lettered entry is acked")
    }

    func testMalformedEntriesGetRejectedResultsAndAcks() async throws {
        let awaited12 = try await client.command("XADD", "richpush:jobs", "*", "payload", "{}").text
        let missing = try XCTUnwrap(awaited12)
        let awaited13 = try await client.command("XADD", "richpush:jobs", "*", "job", "{not json").text
        let malformed = try XCTUnwrap(awaited13)
        var addBinary = RedisCommand("XADD", "richpush:jobs", "*", "job")
        addBinary.append(Data([0xFF, 0x00, 0xFE]))
        let binaryReply = try await session(addBinary)
        let binary = try XCTUnwrap(binaryReply.text)
        try await client.addJobs(1, prefix: "fine")
        let consumer = try RedisStreamConsumer(configuration: configuration(consumer: "c1"), handler: Self.fakeHandler)
        let run = start(consumer)
        try await waitUntil(timeout: .seconds(10), "4 results") { try await client.length("richpush:results") == 4 }
        consumer.stop()
        let summary = try await run.value

        let results = try await client.entries("richpush:results")
        func result(for entryID: String) throws -> [String: Any] {
            let entry = try XCTUnwrap(results.first { $0.value(of: "entry_id") == Data(entryID.utf8) }, entryID)
            return try XCTUnwrap(JSONSerialization.jsonObject(with: XCTUnwrap(entry.value(of: "result"))) as? [String: Any])
        }
        let missingResult = try result(for: missing)
        XCTAssertEqual(missingResult["status"] as? String, "rejected")
        XCTAssertEqual((missingResult["diagnostics"] as? [[String: Any]])?.first?["code"] as? String, "missing_job_field")
        XCTAssertEqual(try result(for: malformed)["status"] as? String, "rejected")
        XCTAssertEqual(try result(for: binary)["status"] as? String, "rejected")
        let awaited15 = try await client.resultJobIDs()
        XCTAssertEqual(Set(awaited15), ["", "fine-0"])
        let awaited16 = try await client.pendingCount()
        XCTAssertEqual(awaited16, 0)
        XCTAssertEqual(summary.missingJobField, 1)
        XCTAssertEqual(summary.resultsWritten, 4)
        XCTAssertEqual(summary.jobsHandled, 3, "the entry without a job field never reaches the handler")
    }

    private func session(_ command: RedisCommand) async throws -> RedisReply {
        try await client.session.perform(command)
    }

    func testStopDrainsJobsInFlightAndLeavesTheRestUnread() async throws {
        let jobIDs = try await client.addJobs(20)
        let started = Mutex(0)
        let jobsEnd = Gate()
        defer { jobsEnd.open() }
        var settings = configuration(consumer: "c1", concurrency: 4)
        settings.batchSize = 4  // at most 4 running + 4 prefetched + 1 in the launcher's hand, waiting for a slot
        let consumer = try RedisStreamConsumer(configuration: settings) { job in
            started.withLock { $0 += 1 }
            await jobsEnd.wait()
            return FakeJobHandler.outcome(for: job)
        }
        let run = start(consumer)
        try await waitUntil(timeout: .seconds(10), "4 jobs in flight") { started.withLock { $0 } == 4 }
        let early = try await client.length("richpush:results")
        XCTAssertEqual(early, 0, "jobs are still running")
        consumer.stop()
        jobsEnd.open()   // the jobs in flight end after the stop
        let summary = try await run.value

        // Everything read (running or prefetched) was finished, written and acked before run() returned.
        XCTAssertGreaterThanOrEqual(summary.jobsHandled, 4)
        XCTAssertLessThanOrEqual(summary.jobsHandled, 9)
        XCTAssertEqual(started.withLock { $0 }, summary.jobsHandled)
        let written = try await client.length("richpush:results")
        XCTAssertEqual(written, summary.jobsHandled, "every job read got its result")
        let pending = try await client.pendingCount()
        XCTAssertEqual(pending, 0, "and its ack")

        // Nothing unread was taken: a second consumer finds the rest.
        let second = try RedisStreamConsumer(configuration: configuration(consumer: "c2"), handler: Self.fakeHandler)
        let secondRun = start(second)
        try await waitUntil(timeout: .seconds(10), "20 results") { try await client.length("richpush:results") == 20 }
        second.stop()
        let secondSummary = try await secondRun.value
        XCTAssertEqual(secondSummary.jobsHandled, 20 - summary.jobsHandled)
        let results = try await client.resultJobIDs()
        XCTAssertEqual(results.count, 20)
        XCTAssertEqual(Set(results), Set(jobIDs))
    }

    func testResultsStreamIsTrimmedApproximately() async throws {
        try await client.addJobs(1_000)
        var settings = configuration(consumer: "c1")
        settings.resultsMaximumLength = 100
        let consumer = try RedisStreamConsumer(configuration: settings, handler: Self.fakeHandler)
        let run = start(consumer)
        try await waitUntil(timeout: .seconds(20), "1,000 results written") {
            await consumer.currentSummary().resultsWritten == 1_000
        }
        consumer.stop()
        _ = try await run.value
        let pending = try await client.pendingCount()
        XCTAssertEqual(pending, 0)
        let kept = try await client.length("richpush:results")
        // MAXLEN ~ trims whole radix-tree nodes (100 entries each by default), so a little more than 100 may stay.
        XCTAssertGreaterThanOrEqual(kept, 100)
        XCTAssertLessThan(kept, 300, "the results stream was not trimmed")
    }

    func testRunTwiceIsRefused() async throws {
        let consumer = try RedisStreamConsumer(configuration: configuration(consumer: "c1"), handler: Self.fakeHandler)
        let run = start(consumer)
        // run() marks the consumer running before it creates the group.
        try await waitUntil(timeout: .seconds(10), "the first run to create the group", interval: .milliseconds(5)) {
            (try? await client.command("XINFO", "GROUPS", "richpush:jobs"))?.elements?.isEmpty == false
        }
        do {
            _ = try await consumer.run()
            XCTFail("a second run() must throw")
        } catch {
            XCTAssertEqual(error, .alreadyRunning)
        }
        consumer.stop()
        _ = try await run.value
    }

    func testWrongKeyTypeFailsAtStartUp() async throws {
        try await client.command("SET", "richpush:results", "not a stream")
        let consumer = try RedisStreamConsumer(configuration: configuration(consumer: "c1"), handler: Self.fakeHandler)
        do {
            _ = try await consumer.run()
            XCTFail("expected wrongType")
        } catch {
            XCTAssertEqual(error, .wrongType(key: "richpush:results", type: "string"))
        }
    }

    func testUnreachableServerFailsAtStartUp() async throws {
        let port = try RedisTestServer.freePort()
        let consumer = try RedisStreamConsumer(
            configuration: StreamConsumerConfiguration(endpoint: RedisEndpoint(host: "127.0.0.1", port: port)),
            handler: Self.fakeHandler
        )
        do {
            _ = try await consumer.run()
            XCTFail("expected a connection error")
        } catch {
            XCTAssertEqual(error.code, "connection_failed")
            XCTAssertTrue(error.description.contains("127.0.0.1:\(port)"), error.description)
        }
    }
}
