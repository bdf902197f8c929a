import Foundation
import XCTest

import RichPush
import TestSupport
@testable import RichPushCore
@testable import RichPushCache
@testable import RichPushHTTP
@testable import RichPushPipeline

func makeConfiguration(
    root: URL, defaultTTL: Duration = .seconds(3600), negativeTTL: Duration = .seconds(300),
    lockWaitTimeout: Duration = .seconds(20), clock: any CacheClock = SystemCacheClock()
) -> CacheConfiguration {
    var configuration = CacheConfiguration(root: root, publicBaseURL: "https://cdn.example.com/media/")
    configuration.defaultTTL = defaultTTL
    configuration.maximumTTL = .seconds(86_400)
    configuration.negativeTTL = negativeTTL
    configuration.lockWaitTimeout = lockWaitTimeout
    configuration.usageWriteInterval = .zero
    configuration.retentionGranularity = .seconds(60)
    configuration.clock = clock
    return configuration
}

/// Bytes that start with a JPEG signature, then `payload`, padded to `size`.
func fakeJPEG(_ payload: String, size: Int = 2048) -> Data {
    var data = Data([0xFF, 0xD8, 0xFF, 0xE0])
    data.append(Data(payload.utf8))
    if data.count < size { data.append(Data(repeating: 0x5A, count: size - data.count)) }
    return data
}

func fakePNG(_ payload: String) -> Data {
    var data = Data(PNGFile.signature)
    data.append(Data(payload.utf8))
    return data
}

func jpegProduction(_ payload: String, size: Int = 2048, etag: String? = nil, maxAge: Duration? = nil)
    -> CacheProduction
{
    .object(
        bytes: fakeJPEG(payload, size: size), format: .jpeg, width: 100, height: 80,
        etag: etag, lastModified: nil, maxAge: maxAge)
}

func farDeadline() -> ContinuousClock.Instant { .now + .seconds(60) }

extension MediaStore {
    /// `object(for:)` with the request's parts as arguments, as these tests write them.
    func object(
        for key: CacheKey, sourceURL: String, variant: String, retainUntil: Date?, deadline: ContinuousClock.Instant,
        produce: @escaping @Sendable (CachedObject?) async throws -> CacheProduction
    ) async throws(CacheError) -> CacheOutcome {
        try await object(for: CacheRequest(
            key: key, sourceURL: sourceURL, variant: variant, retainUntil: retainUntil, deadline: deadline, produce: produce))
    }

    /// The answer of `look`, nil for a miss.
    func immediateOutcome(for key: CacheKey, retainUntil: Date?) async -> CacheOutcome? {
        await look(for: key, retainUntil: retainUntil).outcome
    }
}

func key(_ url: String, variant: String = "attachment") -> CacheKey {
    CacheKey(sourceURL: url, variant: variant, rendererVersion: "test-1")
}

/// Counts calls from concurrent producers.
final class CallCounter: Sendable {
    private let storage = Mutex<[String: Int]>([:])

    func increment(_ name: String = "") -> Int {
        storage.withLock { values in
            values[name, default: 0] += 1
            return values[name, default: 0]
        }
    }

    func count(_ name: String = "") -> Int { storage.withLock { $0[name, default: 0] } }
}

import Synchronization

extension CacheOutcome {
    var kind: String {
        switch self {
        case .hit: return "hit"
        case .produced: return "produced"
        case .revalidated: return "revalidated"
        case .failed(_, let cached): return cached ? "failed-cached" : "failed"
        }
    }
}

/// The bytes a reader (or the CDN) would get for an object.
func storedBytes(_ store: FileMediaStore, _ object: CachedObject) throws -> Data {
    try Data(contentsOf: store.configuration.root.appendingPathComponent(object.relativePath))
}
