import Foundation
import XCTest

import TestSupport
@testable import RichPushCore
@testable import RichPushCache

/// One lookup path: a key is read once without its lock (a warm key ends there) and once under it, whichever
/// entry point the caller used. The counts are the disk's looks at the key's object and at its negative entry.
final class LookupCountTests: XCTestCase {
    private let clock = ManualCacheClock()
    private let source = "https://origin.test/looked.jpg"

    /// No memory of answers and no usage write-back, so every answer reads the disk and nothing else reads it.
    private func makeQuietConfiguration() throws -> CacheConfiguration {
        var configuration = makeConfiguration(root: try makeTemporaryDirectory(), clock: clock)
        configuration.memoryHitDuration = .zero
        configuration.usageWriteInterval = .seconds(3_600)
        return configuration
    }

    /// Deadlines are read on the store's clock, which the tests move.
    private func deadline() -> ContinuousClock.Instant { clock.instant + .seconds(60) }

    /// The looks at objects and at negative entries that `body` costs.
    private func looks(
        _ disk: CacheDisk, during body: () async throws -> Void
    ) async rethrows -> (objects: Int, failures: Int) {
        let (objects, failures) = (disk.looks.objects, disk.looks.failures)
        try await body()
        return (disk.looks.objects - objects, disk.looks.failures - failures)
    }

    private func object(
        _ store: FileMediaStore, retainUntil: Date? = nil, counter: CallCounter? = nil,
        production: CacheProduction = jpegProduction("looked")
    ) async throws -> CacheOutcome {
        try await store.object(
            for: key(source), sourceURL: source, variant: "attachment", retainUntil: retainUntil,
            deadline: deadline()
        ) { _ in
            _ = counter?.increment()
            return production
        }
    }

    func testColdKeyIsReadOnceWithoutTheLockAndOnceUnderIt() async throws {
        let store = try FileMediaStore(configuration: makeQuietConfiguration())
        let counter = CallCounter()
        var outcome: CacheOutcome?
        let cold = try await looks(store.disk) { outcome = try await object(store, counter: counter) }
        XCTAssertEqual(outcome?.kind, "produced")
        XCTAssertEqual(counter.count(), 1)
        XCTAssertEqual(cold.objects, 2, "one look without the lock, one re-check under it")
        XCTAssertEqual(cold.failures, 2)
    }

    func testResolvingAfterALookReadsOnlyUnderTheLock() async throws {
        let store = try FileMediaStore(configuration: makeQuietConfiguration())
        var look: CacheLook?
        let unlocked = await looks(store.disk) {
            look = await store.look(for: key(source), retainUntil: nil)
        }
        guard case .missed(let miss) = look else { return XCTFail("a cold key is a miss: \(String(describing: look))") }
        XCTAssertEqual(unlocked.objects, 1)
        XCTAssertEqual(unlocked.failures, 1)

        let request = CacheRequest(
            key: key(source), sourceURL: source, variant: "attachment", retainUntil: nil, deadline: deadline(),
            produce: { _ in jpegProduction("looked") })
        var outcome: CacheOutcome?
        let locked = try await looks(store.disk) { outcome = try await store.object(for: request, after: miss) }
        XCTAssertEqual(outcome?.kind, "produced")
        XCTAssertEqual(locked.objects, 1, "the look's miss was the read without the lock: only the re-check is left")
        XCTAssertEqual(locked.failures, 1)

        // A miss of another key is no look at this one: the resolution reads it first.
        let otherRequest = CacheRequest(
            key: key(source + "?other"), sourceURL: source + "?other", variant: "attachment", retainUntil: nil,
            deadline: deadline(), produce: { _ in jpegProduction("other") })
        let unrelated = try await looks(store.disk) { outcome = try await store.object(for: otherRequest, after: miss) }
        XCTAssertEqual(outcome?.kind, "produced")
        XCTAssertEqual(unrelated.objects, 2, "one look without the lock, one re-check under it")
    }

    func testWarmKeyIsOneRead() async throws {
        let store = try FileMediaStore(configuration: makeQuietConfiguration())
        _ = try await object(store)
        let counter = CallCounter()
        var outcome: CacheOutcome?
        let warm = try await looks(store.disk) { outcome = try await object(store, counter: counter) }
        XCTAssertEqual(outcome?.kind, "hit")
        XCTAssertEqual(counter.count(), 0)
        XCTAssertEqual(warm.objects, 1)
        XCTAssertEqual(warm.failures, 0)

        var immediate: CacheOutcome?
        let immediately = await looks(store.disk) {
            immediate = await store.immediateOutcome(for: key(source), retainUntil: nil)
        }
        XCTAssertEqual(immediate?.kind, "hit")
        XCTAssertEqual(immediately.objects, 1)
        XCTAssertEqual(immediately.failures, 0)
    }

    func testRaisingTheRetentionReadsOnceWithoutTheLockAndOnceUnderIt() async throws {
        let store = try FileMediaStore(configuration: makeQuietConfiguration())
        _ = try await object(store, retainUntil: clock.date.addingTimeInterval(3_600))
        let later = clock.date.addingTimeInterval(30 * 86_400)
        var outcome: CacheOutcome?
        let raise = try await looks(store.disk) { outcome = try await object(store, retainUntil: later) }
        XCTAssertEqual(outcome?.kind, "hit")
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(outcome?.object?.retainUntil), later)
        XCTAssertEqual(raise.objects, 2, "the object read under the lock is the one whose retention is raised")
        XCTAssertEqual(raise.failures, 0)
        let stored = try await store.lookup(key(source))
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(stored?.retainUntil), later, "the raise was written")
    }

    func testLiveNegativeEntryIsOneReadOfEach() async throws {
        let store = try FileMediaStore(configuration: makeQuietConfiguration())
        _ = try await object(store, production: .failure(RememberedFailure(code: "http_status", message: "404")))
        let counter = CallCounter()
        var outcome: CacheOutcome?
        let negative = try await looks(store.disk) { outcome = try await object(store, counter: counter) }
        XCTAssertEqual(outcome?.kind, "failed-cached")
        XCTAssertEqual(counter.count(), 0)
        XCTAssertEqual(negative.objects, 1)
        XCTAssertEqual(negative.failures, 1)
    }

    func testStaleObjectIsRevalidatedWithOneReadEachSideOfTheLock() async throws {
        let store = try FileMediaStore(configuration: makeQuietConfiguration())
        _ = try await object(store, production: jpegProduction("looked", maxAge: .seconds(60)))
        clock.advance(by: .seconds(120))
        // Writes the usage the advance made due now, so that no flush reads the key during the measurement.
        try await store.flushUsage()
        var outcome: CacheOutcome?
        let stale = try await looks(store.disk) {
            outcome = try await object(store, production: .notModified(etag: nil, lastModified: nil, maxAge: nil))
        }
        XCTAssertEqual(outcome?.kind, "revalidated")
        XCTAssertEqual(stale.objects, 2)
        XCTAssertEqual(stale.failures, 1, "only the re-check under the lock needs the negative entry of a stale key")
    }

    /// A store over `RequestLikeBackend`, its disk, and the counter of its holds.
    private func makeRequestLikeStore(
        keepsOthersOut: Bool
    ) throws -> (CachingStore<RequestLikeBackend>, CacheDisk, CallCounter) {
        let configuration = try makeQuietConfiguration()
        let disk = CacheDisk(configuration: configuration)
        try disk.createDirectories()
        let holds = CallCounter()
        let cache = try CachingStore(
            publicBaseURL: configuration.publicBaseURL, memoryHitDuration: .zero, clock: clock
        ) { _ in
            RequestLikeBackend(disk: disk, holds: holds, keepsOthersOut: keepsOthersOut)
        }
        return (cache, disk, holds)
    }

    /// A backend without a cheap read (object storage) is read by the resolution itself before the hold: a warm key
    /// must never take the hold (a lease round trip, and contention between hosts reading a hot key).
    func testBackendWithoutReadsBeforeTheHoldIsReadByTheResolutionBeforeHolding() async throws {
        let (cache, disk, holds) = try makeRequestLikeStore(keepsOthersOut: true)
        func object(retainUntil: Date? = nil) async throws -> CacheOutcome {
            try await cache.object(
                for: CacheRequest(
                    key: key(source), sourceURL: source, variant: "attachment", retainUntil: retainUntil,
                    deadline: deadline(), produce: { _ in jpegProduction("looked") }),
                after: nil)
        }

        var outcome: CacheOutcome?
        let cold = try await looks(disk) { outcome = try await object() }
        XCTAssertEqual(outcome?.kind, "produced")
        XCTAssertEqual(cold.objects, 2)
        XCTAssertEqual(cold.failures, 2)
        XCTAssertEqual(holds.count(), 1)

        let warm = try await looks(disk) { outcome = try await object() }
        XCTAssertEqual(outcome?.kind, "hit")
        XCTAssertEqual(warm.objects, 1)
        XCTAssertEqual(warm.failures, 0)
        XCTAssertEqual(holds.count(), 1, "a warm key is answered without the hold")

        let raise = try await looks(disk) { outcome = try await object(retainUntil: clock.date.addingTimeInterval(86_400)) }
        XCTAssertEqual(outcome?.kind, "hit")
        XCTAssertEqual(raise.objects, 2)
        XCTAssertEqual(holds.count(), 2)
    }

    /// Object storage without a lease: the hold keeps no other host out, so the read before it is not repeated.
    func testHoldThatExcludesNoOtherProcessIsNotFollowedByARecheck() async throws {
        let (cache, disk, holds) = try makeRequestLikeStore(keepsOthersOut: false)
        let counter = CallCounter()
        var outcome: CacheOutcome?
        let cold = try await looks(disk) {
            let request = CacheRequest(
                key: key(source), sourceURL: source, variant: "attachment", retainUntil: nil, deadline: deadline()
            ) { _ in
                _ = counter.increment()
                return jpegProduction("looked")
            }
            outcome = try await cache.object(for: request, after: nil)
        }
        XCTAssertEqual(outcome?.kind, "produced")
        XCTAssertEqual(counter.count(), 1)
        XCTAssertEqual(holds.count(), 1, "single-flight in this process still holds the key")
        XCTAssertEqual(cold.objects, 1)
        XCTAssertEqual(cold.failures, 1)
    }
}

/// The file backend as object storage behaves: no answer without the hold, and each hold counted.
private struct RequestLikeBackend: CacheBackend {
    let disk: CacheDisk
    let holds: CallCounter
    /// What its holds say of themselves (the disk's `flock` does keep others out).
    let keepsOthersOut: Bool

    var rules: CacheFreshnessRules { disk.rules }

    func readObject(_ key: CacheKey, deadline: ContinuousClock.Instant) async throws(CacheError) -> CachedObject? {
        try await disk.readObject(key, deadline: deadline)
    }

    func readFailure(_ key: CacheKey, deadline: ContinuousClock.Instant) async throws(CacheError) -> CachedFailure? {
        try await disk.readFailure(key, deadline: deadline)
    }

    func writeSidecar(_ object: CachedObject, deadline: ContinuousClock.Instant) async throws(CacheError) {
        try await disk.writeSidecar(object, deadline: deadline)
    }

    func writeFailure(_ failure: CachedFailure, deadline: ContinuousClock.Instant) async throws(CacheError) {
        try await disk.writeFailure(failure, deadline: deadline)
    }

    func removeFailure(_ key: CacheKey, deadline: ContinuousClock.Instant) async throws(CacheError) {
        try await disk.removeFailure(key, deadline: deadline)
    }

    func publish(
        _ object: CachedObject, bytes: Data, replacing previous: CachedObject?, deadline: ContinuousClock.Instant
    ) async throws(CacheError) {
        try await disk.publish(object, bytes: bytes, replacing: previous, deadline: deadline)
    }

    func hold(
        _ key: CacheKey, deadline: ContinuousClock.Instant, look: () async throws(CacheError) -> CacheOutcome?
    ) async throws(CacheError) -> CacheHoldResult<CacheFileLock> {
        _ = holds.increment()
        switch try await disk.hold(key, deadline: deadline, look: look) {
        case .held(let lock, _): return .held(lock, keepsOthersOut: keepsOthersOut)
        case .answered(let outcome): return .answered(outcome)
        }
    }

    func release(_ hold: CacheFileLock, for key: CacheKey) async {
        await disk.release(hold, for: key)
    }
}
