import Foundation
import TestSupport
import XCTest

import RichPush
@testable import RichPushCore
@testable import RichPushCache
@testable import RichPushHTTP
@testable import RichPushPipeline

/// The rules every store must keep, run against both backends: a temporary directory and a bucket on moto. The
/// resolution is one `CacheResolver`, so a rule decided here holds for both; the suite keeps it that way.
///
/// Each store is made with no outcome memory (`memoryHitDuration` zero), so every answer comes from the backend.
final class StoreContract {
    /// Freshness, negative TTL and retention step, the same for both stores.
    struct Settings {
        var negativeTTL: Duration = .seconds(300)
        var publicBaseURL = "https://cdn.example.com/media/"
        /// The store's clock, which the test moves instead of sleeping.
        var clock = ManualCacheClock()
    }

    let makeStore: (Settings) throws -> any MaintainedMediaStore

    init(makeStore: @escaping (Settings) throws -> any MaintainedMediaStore) {
        self.makeStore = makeStore
    }

    private static func resolve(
        _ store: any MediaStore, _ key: CacheKey, retainUntil: Date? = nil, counter: CallCounter,
        _ production: @escaping @Sendable (CachedObject?) -> CacheProduction
    ) async throws -> CacheOutcome {
        try await store.object(
            for: key, sourceURL: "https://origin.test/\(key.hexDigest.prefix(8))", variant: "attachment",
            retainUntil: retainUntil, deadline: farDeadline()
        ) { stale in
            _ = counter.increment()
            return production(stale)
        }
    }

    /// A fresh object is answered without the producer; the answer describes the published bytes.
    func freshObjectIsAHit() async throws {
        let store = try makeStore(Settings())
        let counter = CallCounter()
        let first = try await Self.resolve(store, key("https://a.test/fresh"), counter: counter) { _ in jpegProduction("fresh") }
        XCTAssertEqual(first.kind, "produced")
        let second = try await Self.resolve(store, key("https://a.test/fresh"), counter: counter) { _ in jpegProduction("other") }
        XCTAssertEqual(second.kind, "hit")
        XCTAssertEqual(second.object?.contentSHA256, SHA256.hexDigest(of: fakeJPEG("fresh")))
        XCTAssertEqual(counter.count(), 1)
    }

    /// A permanent failure is remembered for the negative TTL and answered without the producer; after it, the
    /// producer runs again.
    func failureIsRememberedForTheNegativeTTL() async throws {
        let settings = Settings(negativeTTL: .milliseconds(300))
        let store = try makeStore(settings)
        let counter = CallCounter()
        let target = key("https://a.test/broken")
        let first = try await Self.resolve(store, target, counter: counter) { _ in .failure(RememberedFailure(code: "http_status", message: "404")) }
        XCTAssertEqual(first.kind, "failed")
        let second = try await Self.resolve(store, target, counter: counter) { _ in jpegProduction("late") }
        XCTAssertEqual(second.kind, "failed-cached")
        XCTAssertEqual(counter.count(), 1)
        settings.clock.advance(by: .milliseconds(400))
        let third = try await Self.resolve(store, target, counter: counter) { _ in jpegProduction("late") }
        XCTAssertEqual(third.kind, "produced")
        let statistics = try await store.statistics()
        XCTAssertEqual(statistics.negativeEntryCount + statistics.expiredNegativeEntryCount, 0,
                       "publishing removes the key's negative entry")
    }

    /// A stale object is revalidated with its validators; a 304 refreshes it and removes the key's negative entry
    /// (the file store did, the object store did not: decided here for both).
    func revalidationRefreshesAndRemovesTheNegativeEntry() async throws {
        let settings = Settings(negativeTTL: .milliseconds(200))
        let store = try makeStore(settings)
        let counter = CallCounter()
        let target = key("https://a.test/revalidate")
        // Stale at once (max-age 0), with an ETag to revalidate with.
        _ = try await Self.resolve(store, target, counter: counter) { _ in jpegProduction("v1", etag: "\"v1\"", maxAge: .zero) }
        // The origin then failed once: the object stays, a negative entry is written.
        let failed = try await Self.resolve(store, target, counter: counter) { _ in .failure(RememberedFailure(code: "http_status", message: "410")) }
        XCTAssertEqual(failed.kind, "failed")
        settings.clock.advance(by: .milliseconds(300))
        let validators = Mutex<String?>(nil)
        let revalidated = try await Self.resolve(store, target, counter: counter) { stale in
            validators.withLock { $0 = stale?.etag }
            return .notModified(etag: "\"v1\"", lastModified: nil, maxAge: .seconds(3600))
        }
        XCTAssertEqual(validators.withLock { $0 }, "\"v1\"", "the stale object's ETag is offered for revalidation")
        XCTAssertEqual(revalidated.kind, "revalidated")
        XCTAssertEqual(revalidated.object?.contentSHA256, SHA256.hexDigest(of: fakeJPEG("v1")))
        let statistics = try await store.statistics()
        XCTAssertEqual(statistics.negativeEntryCount + statistics.expiredNegativeEntryCount, 0)
        XCTAssertEqual(statistics.staleObjectCount, 0)
        let again = try await Self.resolve(store, target, counter: counter) { _ in jpegProduction("v2") }
        XCTAssertEqual(again.kind, "hit")
        XCTAssertEqual(counter.count(), 3)
    }

    /// A job that needs the object longer raises `retainUntil` (rounded up, never lowered), and that is a use: its
    /// `lastUsedAt` moves (the object store did, the file store did not: decided here for both).
    func retentionRaiseIsAUse() async throws {
        let settings = Settings()
        let store = try makeStore(settings)
        let counter = CallCounter()
        let target = key("https://a.test/retain")
        let soon = Date().addingTimeInterval(600)
        let produced = try await Self.resolve(store, target, retainUntil: soon, counter: counter) { _ in jpegProduction("r") }
        let publishedUse = try XCTUnwrap(produced.object?.lastUsedAt)
        settings.clock.advance(by: .milliseconds(20))
        let later = Date().addingTimeInterval(86_400)
        let raised = try await Self.resolve(store, target, retainUntil: later, counter: counter) { _ in jpegProduction("x") }
        XCTAssertEqual(raised.kind, "hit")
        let stored = try await store.lookup(target)
        let object = try XCTUnwrap(stored)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(object.retainUntil), later)
        XCTAssertGreaterThan(object.lastUsedAt, publishedUse, "a retention raise records a use")
        // An earlier date never lowers it.
        _ = try await Self.resolve(store, target, retainUntil: soon, counter: counter) { _ in jpegProduction("y") }
        let unchanged = try await store.lookup(target)
        XCTAssertEqual(unchanged?.retainUntil, object.retainUntil)
        XCTAssertEqual(counter.count(), 1)
    }

    /// Concurrent callers of one key run the producer once and all get its object.
    func concurrentCallersShareOneProduction() async throws {
        let store = try makeStore(Settings())
        let counter = CallCounter()
        let target = key("https://a.test/flight")
        let gate = Gate()
        defer { gate.open() }
        let kinds = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    try await store.object(
                        for: target, sourceURL: "https://origin.test/flight", variant: "attachment", retainUntil: nil,
                        deadline: farDeadline()
                    ) { _ in
                        _ = counter.increment()
                        await gate.wait()
                        return jpegProduction("once")
                    }.kind
                }
            }
            // The production ends only once every caller has joined it.
            try await waitUntil(timeout: .seconds(30), "all callers waiting", interval: .milliseconds(2)) {
                Self.callersWaiting(store) == 12
            }
            gate.open()
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        XCTAssertEqual(counter.count(), 1)
        XCTAssertEqual(kinds, Array(repeating: "produced", count: 12), "every caller shared the one production")
    }

    /// Callers of `store` waiting for a resolution; both stores count them.
    private static func callersWaiting(_ store: any MediaStore) -> Int {
        (store as? FileMediaStore)?.callersWaiting ?? (store as? ObjectStorageMediaStore)?.callersWaiting ?? 0
    }

    /// A format the store decodes but never publishes (HEIC, AVIF: devices and the CDN types list take the
    /// rendered JPEG, PNG or WebP) is refused: an `invalid_output` failure, and nothing stored. The bytes' own
    /// format was settled before (the fetcher's sniff, the encoder's output check).
    func invalidOutputIsNotPublished() async throws {
        let store = try makeStore(Settings())
        let counter = CallCounter()
        let target = key("https://a.test/invalid")
        let outcome = try await Self.resolve(store, target, counter: counter) { _ in
            .object(bytes: Data("\0\0\0\u{18}ftypheic".utf8), format: .heic, width: 1, height: 1, etag: nil,
                    lastModified: nil, maxAge: nil)
        }
        guard case .failed(let failure, cached: false) = outcome else { return XCTFail("\(outcome.kind)") }
        XCTAssertEqual(failure.code, "invalid_output")
        let missing = try await store.lookup(target)
        XCTAssertNil(missing)
    }

    /// The readiness check passes on a usable store.
    func readinessPasses() async throws {
        try await makeStore(Settings()).checkReadiness()
    }

    /// Every store refuses a public base URL a device cannot use, before any I/O.
    func unusablePublicBaseURLIsRefused() throws {
        for url in ["ftp://cdn.example.com/", "https://cdn.example.com/m?sig=1", "https:///m/"] {
            XCTAssertThrowsError(try makeStore(Settings(publicBaseURL: url)), url) { error in
                XCTAssertEqual((error as? CacheError)?.code, "invalid_configuration", url)
            }
        }
    }

    /// A call whose deadline has passed, or whose task is cancelled, ends at once without the producer.
    func pastDeadlineAndCancellationEndWithoutTheProducer() async throws {
        let store = try makeStore(Settings())
        let counter = CallCounter()
        do {
            _ = try await store.object(
                for: key("https://a.test/late"), sourceURL: "https://a.test/late", variant: "attachment",
                retainUntil: nil, deadline: .now - .seconds(1)
            ) { _ in
                _ = counter.increment()
                return jpegProduction("late")
            }
            XCTFail("a past deadline must throw")
        } catch {
            XCTAssertEqual(error.code, "deadline_exceeded")
        }
        let cancelledKey = key("https://a.test/cancelled")
        let cancelled = Task { () async -> ErrorCode? in
            while !Task.isCancelled { await Task.yield() }
            do {
                _ = try await store.object(
                    for: cancelledKey, sourceURL: "https://a.test/cancelled", variant: "attachment", retainUntil: nil,
                    deadline: farDeadline()
                ) { _ in
                    _ = counter.increment()
                    return jpegProduction("c")
                }
                return nil
            } catch {
                return (error as? CacheError)?.code
            }
        }
        cancelled.cancel()
        let code = await cancelled.value
        XCTAssertEqual(code, "cancelled", "a cancelled call must throw")
        XCTAssertEqual(counter.count(), 0)
    }

    /// Every answer is counted once: a miss that produced, then a hit, then a remembered failure.
    func answersAreCountedOnce() async throws {
        let store = try makeStore(Settings())
        let counter = CallCounter()
        _ = try await Self.resolve(store, key("https://a.test/counted"), counter: counter) { _ in jpegProduction("c") }
        _ = try await Self.resolve(store, key("https://a.test/counted"), counter: counter) { _ in jpegProduction("c") }
        _ = try await Self.resolve(store, key("https://a.test/gone"), counter: counter) { _ in .failure(RememberedFailure(code: "http_status", message: "404")) }
        _ = try await Self.resolve(store, key("https://a.test/gone"), counter: counter) { _ in jpegProduction("c") }
        let statistics = try await store.statistics()
        XCTAssertEqual([statistics.hits, statistics.misses, statistics.negativeHits], [1, 2, 1])
    }
}

import Synchronization

final class FileStoreContractTests: XCTestCase {
    private lazy var contract = StoreContract { [unowned self] settings in
        var configuration = makeConfiguration(root: try makeTemporaryDirectory(), negativeTTL: settings.negativeTTL)
        configuration.publicBaseURL = settings.publicBaseURL
        configuration.memoryHitDuration = .zero
        configuration.clock = settings.clock
        return try FileMediaStore(configuration: configuration)
    }

    func testFreshObjectIsAHit() async throws { try await contract.freshObjectIsAHit() }
    func testFailureIsRememberedForTheNegativeTTL() async throws { try await contract.failureIsRememberedForTheNegativeTTL() }
    func testRevalidationRefreshesAndRemovesTheNegativeEntry() async throws { try await contract.revalidationRefreshesAndRemovesTheNegativeEntry() }
    func testRetentionRaiseIsAUse() async throws { try await contract.retentionRaiseIsAUse() }
    func testConcurrentCallersShareOneProduction() async throws { try await contract.concurrentCallersShareOneProduction() }
    func testInvalidOutputIsNotPublished() async throws { try await contract.invalidOutputIsNotPublished() }
    func testReadinessPasses() async throws { try await contract.readinessPasses() }
    func testUnusablePublicBaseURLIsRefused() throws { try contract.unusablePublicBaseURLIsRefused() }
    func testPastDeadlineAndCancellationEndWithoutTheProducer() async throws { try await contract.pastDeadlineAndCancellationEndWithoutTheProducer() }
    func testAnswersAreCountedOnce() async throws { try await contract.answersAreCountedOnce() }
}

final class ObjectStorageStoreContractTests: XCTestCase {
    nonisolated(unsafe) private static var server: Result<MotoServer, Error>?
    private var fetcher: Fetcher!

    override class func tearDown() {
        if case .success(let server)? = server { server.stop() }
        server = nil
        super.tearDown()
    }

    override func setUpWithError() throws {
        if Self.server == nil { Self.server = Result { try MotoServer() } }
        fetcher = try Fetcher()
    }

    override func tearDown() {
        fetcher?.shutdown()
        super.tearDown()
    }

    private lazy var contract = StoreContract { [unowned self] settings in
        let server = try XCTUnwrap(Self.server).get()
        let bucket = "contract-\(UUID().uuidString.prefix(8).lowercased())"
        try server.createBucket(bucket)
        let location = try ObjectStorageLocation(
            cacheURL: "s3://\(bucket)/media", endpoint: server.endpoint, region: "us-east-1",
            accessKeyID: server.accessKeyID, secretAccessKey: server.secretAccessKey)
        var configuration = ObjectStorageConfiguration(location: location, publicBaseURL: settings.publicBaseURL)
        configuration.negativeTTL = settings.negativeTTL
        configuration.retentionGranularity = .seconds(60)
        configuration.memoryHitDuration = .zero
        configuration.clock = settings.clock
        return try ObjectStorageMediaStore(configuration: configuration, transport: fetcher, lease: nil)
    }

    func testFreshObjectIsAHit() async throws { try await contract.freshObjectIsAHit() }
    func testFailureIsRememberedForTheNegativeTTL() async throws { try await contract.failureIsRememberedForTheNegativeTTL() }
    func testRevalidationRefreshesAndRemovesTheNegativeEntry() async throws { try await contract.revalidationRefreshesAndRemovesTheNegativeEntry() }
    func testRetentionRaiseIsAUse() async throws { try await contract.retentionRaiseIsAUse() }
    func testConcurrentCallersShareOneProduction() async throws { try await contract.concurrentCallersShareOneProduction() }
    func testInvalidOutputIsNotPublished() async throws { try await contract.invalidOutputIsNotPublished() }
    func testReadinessPasses() async throws { try await contract.readinessPasses() }
    func testUnusablePublicBaseURLIsRefused() throws { try contract.unusablePublicBaseURLIsRefused() }
    func testPastDeadlineAndCancellationEndWithoutTheProducer() async throws { try await contract.pastDeadlineAndCancellationEndWithoutTheProducer() }
    func testAnswersAreCountedOnce() async throws { try await contract.answersAreCountedOnce() }
}
