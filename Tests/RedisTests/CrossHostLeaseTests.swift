import Foundation
import Synchronization
import TestSupport
import XCTest

import RichPush
@testable import RichPushCore
@testable import RichPushCache
@testable import RichPushRedis
@testable import RichPushHTTP
@testable import RichPushPipeline

/// Cross-host single-flight of the object-storage cache through `RedisLease`, against a real redis-server and a
/// local S3 server (moto) that checks signatures.
final class CrossHostLeaseTests: XCTestCase {
    func testEightStoresOnTwoHostsRenderEachKeyOnce() async throws {
        let redis = try RedisTestServer()
        let moto = try MotoServer()
        defer { moto.stop() }
        let bucket = "richpush-shared"
        try moto.createBucket(bucket)
        let location = try ObjectStorageLocation(
            cacheURL: "s3://\(bucket)/cache", endpoint: moto.endpoint, region: "us-east-1",
            accessKeyID: moto.accessKeyID, secretAccessKey: moto.secretAccessKey)

        // Two hosts with four processes each: every process has its own store (memory, single-flight table), its
        // own fetcher (libcurl multi handle) and its own Redis connections. Only the bucket and Redis are shared.
        var fetchers: [Fetcher] = []
        var stores: [ObjectStorageMediaStore] = []
        for _ in 0..<8 {
            let fetcher = try Fetcher()
            fetchers.append(fetcher)
            let lease = RedisLease(endpoint: redis.endpoint)
            try await lease.checkConnection()
            stores.append(try ObjectStorageMediaStore(
                configuration: ObjectStorageConfiguration(location: location, publicBaseURL: "https://cdn.example.com"),
                transport: fetcher, lease: lease))
        }
        defer { fetchers.forEach { $0.shutdown() } }

        let urls = (0..<50).map { "https://img.example/shared/\($0).jpg" }
        let originFetches = FetchCounts()
        let deadline = ContinuousClock.now + .seconds(60)
        let outcomes = try await withThrowingTaskGroup(of: [String].self) { group in
            for (index, store) in stores.enumerated() {
                // Each process walks the keys from a different starting point, so they collide on every key.
                let order = urls.indices.map { urls[($0 + index * 7) % urls.count] }
                group.addTask {
                    var kinds: [String] = []
                    for url in order {
                        let key = CacheKey(sourceURL: url, variant: "attachment", rendererVersion: "test-1")
                        let request = CacheRequest(
                            key: key, sourceURL: url, variant: "attachment", retainUntil: nil, deadline: deadline
                        ) { _ in
                            originFetches.add(url)
                            // The fetch and the render: the scenario's slow work, holding the key's lease while the
                            // other seven stores ask for the key (a gate would serialise what this test races).
                            try await Task.sleep(for: .milliseconds(30))
                            var bytes = Data([0xFF, 0xD8, 0xFF, 0xE0])
                            bytes.append(Data(url.utf8))
                            return .object(
                                bytes: bytes, format: .jpeg, width: 10, height: 10, etag: nil,
                                lastModified: nil, maxAge: nil)
                        }
                        switch try await store.object(for: request) {
                        case .produced: kinds.append("produced")
                        case .hit: kinds.append("hit")
                        case .revalidated: kinds.append("revalidated")
                        case .failed(let failure, _): kinds.append("failed: \(failure.message)")
                        }
                    }
                    return kinds
                }
            }
            return try await group.reduce(into: [String]()) { $0 += $1 }
        }

        XCTAssertEqual(outcomes.count, 8 * 50)
        XCTAssertEqual(outcomes.filter { $0 == "produced" }.count, 50, "\(Set(outcomes))")
        XCTAssertEqual(outcomes.filter { $0 == "hit" }.count, 7 * 50)
        let fetches = originFetches.counts
        XCTAssertEqual(fetches.count, 50)
        XCTAssertEqual(fetches.values.filter { $0 != 1 }.count, 0, "URLs fetched more than once: \(fetches.filter { $0.value != 1 })")
        // Every lease was released by its holder.
        let leftover = try await RedisTestClient(redis.endpoint).command("KEYS", "richpush:lease:*")
        XCTAssertEqual(leftover.elements?.count, 0, "\(leftover)")
        XCTAssertEqual(try moto.listKeys(bucket: bucket, prefix: "cache/objects/").count, 100)
    }

    func testALeaseIsReleasedOnlyByItsHolder() async throws {
        let redis = try RedisTestServer()
        let lease = RedisLease(endpoint: redis.endpoint)
        let first = try await lease.acquire("richpush:lease:test", timeToLive: .milliseconds(200))
        XCTAssertNotNil(first)
        let blocked = try await lease.acquire("richpush:lease:test", timeToLive: .seconds(10))
        XCTAssertNil(blocked, "a held lease must not be taken")

        var second: String?
        try await waitUntil(timeout: .seconds(5), "the 200 ms lease to expire", interval: .milliseconds(10)) {
            second = try await lease.acquire("richpush:lease:test", timeToLive: .seconds(10))
            return second != nil
        }
        XCTAssertNotNil(second, "an expired lease is free again")
        // The first holder's late release must not free the second holder's lease.
        await lease.release("richpush:lease:test", token: try XCTUnwrap(first))
        let stillHeld = try await lease.acquire("richpush:lease:test", timeToLive: .seconds(10))
        XCTAssertNil(stillHeld)

        await lease.release("richpush:lease:test", token: try XCTUnwrap(second))
        let free = try await lease.acquire("richpush:lease:test", timeToLive: .seconds(10))
        XCTAssertNotNil(free)
    }

    func testUnreachableRedisFailsTheStartUpCheckAndDoesNotBlockRenders() async throws {
        let port = try LoopbackPort.free()
        let lease = RedisLease(endpoint: RedisEndpoint(host: "127.0.0.1", port: Int(port)), timeout: .milliseconds(300))
        do {
            try await lease.checkConnection()
            XCTFail("a closed port must fail the start-up check")
        } catch {
            guard case .connection = error else { return XCTFail("expected a connection error: \(error)") }
        }
        // Mid-run, a lost Redis means no cross-host exclusion, never a failed job: the token is empty.
        let token = try await lease.acquire("richpush:lease:x", timeToLive: .seconds(1))
        XCTAssertEqual(token, "")
        await lease.release("richpush:lease:x", token: "")
    }
}

/// Origin fetches per URL, counted from concurrent producers.
private final class FetchCounts: Sendable {
    private let storage = Mutex<[String: Int]>([:])

    func add(_ url: String) { storage.withLock { $0[url, default: 0] += 1 } }
    var counts: [String: Int] { storage.withLock { $0 } }
}
