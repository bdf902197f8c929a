import Foundation
import TestSupport
import XCTest

import RichPush
@testable import RichPushCore
@testable import RichPushCache
@testable import RichPushHTTP
@testable import RichPushPipeline

/// The S3 backend against a local `moto_server` that checks every SigV4 signature.
final class ObjectStorageMediaStoreTests: XCTestCase {
    nonisolated(unsafe) private static var server: MotoServer?
    nonisolated(unsafe) private static var startFailure: Error?

    override class func setUp() {
        super.setUp()
        do {
            server = try MotoServer()
        } catch {
            startFailure = error
        }
    }

    override class func tearDown() {
        server?.stop()
        server = nil
        super.tearDown()
    }

    private var fetcher: Fetcher!

    override func setUpWithError() throws {
        if let failure = Self.startFailure { XCTFail("\(failure)") }
        fetcher = try Fetcher()
    }

    override func tearDown() {
        fetcher?.shutdown()
        super.tearDown()
    }

    private func moto() throws -> MotoServer {
        guard let server = Self.server else { throw Self.startFailure ?? MotoServer.Failure.startFailed("unknown") }
        return server
    }

    /// A store on a bucket of its own, so tests never see each other's objects.
    private func makeStore(
        bucket: String? = nil, secret: String? = nil, negativeTTL: Duration = .seconds(300)
    ) throws -> (ObjectStorageMediaStore, bucket: String) {
        let server = try moto()
        let name = bucket ?? "richpush-\(UUID().uuidString.prefix(8).lowercased())"
        if bucket == nil { try server.createBucket(name) }
        let location = try ObjectStorageLocation(
            cacheURL: "s3://\(name)/media/v1", endpoint: server.endpoint, region: "us-east-1",
            accessKeyID: server.accessKeyID, secretAccessKey: secret ?? server.secretAccessKey)
        var configuration = ObjectStorageConfiguration(location: location, publicBaseURL: "https://cdn.example.com/m/")
        configuration.negativeTTL = negativeTTL
        configuration.orphanMinimumAge = .zero
        return (try ObjectStorageMediaStore(configuration: configuration, transport: fetcher, lease: nil), name)
    }

    func testAudioAndVideoArePutWithTheirExactContentType() async throws {
        let (store, bucket) = try makeStore()
        let server = try moto()
        for (name, bytes) in MediaSamples.all.sorted(by: { $0.key < $1.key }) {
            let format = try XCTUnwrap(AttachmentFormat(name: name))
            let source = "https://media.example/clip.\(name)"
            let outcome = try await store.object(
                for: key(source), sourceURL: source, variant: "attachment", retainUntil: nil, deadline: farDeadline()
            ) { _ in
                .object(bytes: bytes, format: format, width: 0, height: 0, etag: nil,
                        lastModified: nil, maxAge: nil)
            }
            let object = try XCTUnwrap(outcome.object, name)
            XCTAssertTrue(object.relativePath.hasSuffix("." + format.fileExtension), object.relativePath)
            let head = try server.headObject(bucket: bucket, key: "media/v1/" + object.relativePath)
            XCTAssertEqual(head.contentType, format.mediaType, name)
            XCTAssertEqual(head.contentLength, bytes.count, name)
        }
    }

    func testPublishesUnderTheFinalKeyWithExactHeadersAndReadsBack() async throws {
        let (store, bucket) = try makeStore()
        try await store.checkAccess()
        let cacheKey = key("https://img.example/a.jpg")
        let bytes = fakeJPEG("a", size: 5_000)
        let outcome = try await store.object(
            for: cacheKey, sourceURL: "https://img.example/a.jpg", variant: "attachment", retainUntil: nil,
            deadline: farDeadline()
        ) { _ in
            .object(bytes: bytes, format: .jpeg, width: 100, height: 80, etag: "\"e1\"",
                    lastModified: nil, maxAge: nil)
        }
        XCTAssertEqual(outcome.kind, "produced")
        let object = try XCTUnwrap(outcome.object)
        XCTAssertEqual(object.relativePath, "objects/\(cacheKey.shardPath)/\(cacheKey.hexDigest).jpg")
        XCTAssertEqual(store.publicURL(for: object), "https://cdn.example.com/m/" + object.relativePath)

        let server = try moto()
        let keys = try server.listKeys(bucket: bucket, prefix: "media/v1/")
        XCTAssertEqual(Set(keys), [
            "media/v1/" + object.relativePath,
            "media/v1/objects/\(cacheKey.shardPath)/\(cacheKey.hexDigest).json",
        ])
        let head = try server.headObject(bucket: bucket, key: "media/v1/" + object.relativePath)
        XCTAssertEqual(head.contentType, "image/jpeg")
        XCTAssertEqual(head.contentLength, bytes.count)
        XCTAssertTrue(head.cacheControl.contains("max-age=31536000"), head.cacheControl)

        // A second store (another process: nothing in memory) reads the sidecar back and never calls the producer.
        let (other, _) = try makeStore(bucket: bucket)
        let again = try await other.object(
            for: cacheKey, sourceURL: "https://img.example/a.jpg", variant: "attachment", retainUntil: nil,
            deadline: farDeadline()
        ) { _ in
            XCTFail("a fresh object must not be produced again")
            return jpegProduction("never")
        }
        XCTAssertEqual(again.kind, "hit")
        XCTAssertEqual(again.object, object)
        let looked = try await other.lookup(cacheKey)
        XCTAssertEqual(looked, object)
        let verification = try await other.verify(repair: false)
        XCTAssertEqual(verification.healthyObjects, 1)
        XCTAssertEqual(verification.problemCount, 0)
        let statistics = try await other.statistics()
        XCTAssertEqual(statistics.objectCount, 1)
        XCTAssertEqual(statistics.totalBytes, bytes.count)
    }

    func testConcurrentCallersInOneProcessProduceOnce() async throws {
        let (store, _) = try makeStore()
        let counter = CallCounter()
        let cacheKey = key("https://img.example/shared.jpg")
        let gate = Gate()
        defer { gate.open() }
        let kinds = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await store.object(
                        for: cacheKey, sourceURL: "https://img.example/shared.jpg", variant: "attachment",
                        retainUntil: nil, deadline: farDeadline()
                    ) { _ in
                        _ = counter.increment()
                        await gate.wait()
                        return jpegProduction("shared")
                    }.kind
                }
            }
            try await waitUntil(timeout: .seconds(30), "all callers waiting", interval: .milliseconds(2)) {
                store.callersWaiting == 20
            }
            gate.open()
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        XCTAssertEqual(counter.count(), 1)
        XCTAssertEqual(kinds.count, 20)
        XCTAssertTrue(kinds.allSatisfy { $0 == "produced" || $0 == "hit" }, "\(kinds)")
    }

    func testFailuresAreRememberedUntilTheNegativeTTL() async throws {
        let (store, bucket) = try makeStore()
        let cacheKey = key("https://img.example/missing.jpg")
        let counter = CallCounter()
        func askForMissing(_ store: ObjectStorageMediaStore) async throws -> CacheOutcome {
            try await store.object(
                for: cacheKey, sourceURL: "https://img.example/missing.jpg", variant: "attachment", retainUntil: nil,
                deadline: farDeadline()
            ) { _ in
                _ = counter.increment()
                return .failure(RememberedFailure(code: "http_status", message: "origin answered HTTP 404"))
            }
        }
        for expectedCached in [false, true] {
            let outcome = try await askForMissing(store)
            guard case .failed(let failure, let cached) = outcome else { return XCTFail("expected a failure: \(outcome)") }
            XCTAssertEqual(failure.code, "http_status")
            XCTAssertEqual(cached, expectedCached)
        }
        XCTAssertEqual(counter.count(), 1)
        let keys = try moto().listKeys(bucket: bucket, prefix: "media/v1/negative/")
        XCTAssertEqual(keys, ["media/v1/negative/\(cacheKey.shardPath)/\(cacheKey.hexDigest).json"])

        // The store remembers the failure in memory: with the entry gone from storage it still fails fast, while a
        // store without that memory (another process) asks the producer again.
        try moto().deleteObject(bucket: bucket, key: keys[0])
        let remembered = await store.immediateOutcome(for: cacheKey, retainUntil: nil)
        XCTAssertEqual(remembered?.kind.hasPrefix("failed"), true)
        let unremembered = await (try makeStore(bucket: bucket).0).immediateOutcome(for: cacheKey, retainUntil: nil)
        XCTAssertNil(unremembered, "a key the store does not remember needs a request to storage")
        for (store, expectedCalls) in [(store, 1), (try makeStore(bucket: bucket).0, 2)] {
            let outcome = try await askForMissing(store)
            XCTAssertEqual(outcome.kind.hasPrefix("failed"), true)
            XCTAssertEqual(counter.count(), expectedCalls)
        }
    }

    func testOutputInADecodeOnlyFormatIsNeverPublished() async throws {
        let (store, bucket) = try makeStore()
        let outcome = try await store.object(
            for: key("https://img.example/photo.heic"), sourceURL: "https://img.example/photo.heic", variant: "attachment",
            retainUntil: nil, deadline: farDeadline()
        ) { _ in
            .object(bytes: Data("heic bytes".utf8), format: .heic, width: 1, height: 1,
                    etag: nil, lastModified: nil, maxAge: nil)
        }
        guard case .failed(let failure, _) = outcome else { return XCTFail("expected invalid_output: \(outcome)") }
        XCTAssertEqual(failure.code, "invalid_output")
        XCTAssertTrue(try moto().listKeys(bucket: bucket, prefix: "media/v1/objects/").isEmpty)
    }

    func testGarbageCollectionKeepsRetainedObjectsAndEvictsTheRest() async throws {
        let (store, bucket) = try makeStore()
        let retained = key("https://img.example/retained.jpg")
        let plain = key("https://img.example/plain.jpg")
        let until = Date().addingTimeInterval(3_600)
        for (cacheKey, retainUntil) in [(retained, Optional(until)), (plain, nil)] {
            _ = try await store.object(
                for: cacheKey, sourceURL: "https://img.example/\(cacheKey.hexDigest).jpg", variant: "attachment",
                retainUntil: retainUntil, deadline: farDeadline()
            ) { _ in jpegProduction(cacheKey.hexDigest) }
        }
        let report = try await store.collectGarbage(maximumBytes: 0, maximumAge: nil)
        XCTAssertEqual(report.scannedObjects, 2)
        XCTAssertEqual(report.evictedObjects, 1)
        XCTAssertEqual(report.notEvicted.map(\.key), [retained])
        XCTAssertEqual(report.notEvicted.first?.reason, "retained")
        XCTAssertFalse(report.budgetMet)
        let keys = Set(try moto().listKeys(bucket: bucket, prefix: "media/v1/objects/"))
        XCTAssertEqual(keys, [
            "media/v1/objects/\(retained.shardPath)/\(retained.hexDigest).jpg",
            "media/v1/objects/\(retained.shardPath)/\(retained.hexDigest).json",
        ])
        let evicted = try await store.lookup(plain)
        XCTAssertNil(evicted)
    }

    func testVerifyFindsTamperedAndOrphanedObjectsAndRepairs() async throws {
        let (store, bucket) = try makeStore()
        let tampered = key("https://img.example/tampered.jpg")
        let orphaned = key("https://img.example/orphaned.jpg")
        for cacheKey in [tampered, orphaned] {
            _ = try await store.object(
                for: cacheKey, sourceURL: "https://img.example/\(cacheKey.hexDigest).jpg", variant: "attachment",
                retainUntil: nil, deadline: farDeadline()
            ) { _ in jpegProduction(cacheKey.hexDigest) }
        }
        let server = try moto()
        try server.putObject(
            bucket: bucket, key: "media/v1/objects/\(tampered.shardPath)/\(tampered.hexDigest).jpg",
            body: fakeJPEG("evil"))
        try server.deleteObject(
            bucket: bucket, key: "media/v1/objects/\(orphaned.shardPath)/\(orphaned.hexDigest).json")

        let report = try await store.verify(repair: false)
        XCTAssertEqual(report.mismatchedObjects, ["objects/\(tampered.shardPath)/\(tampered.hexDigest).jpg"])
        XCTAssertEqual(report.orphanObjects, ["objects/\(orphaned.shardPath)/\(orphaned.hexDigest).jpg"])
        XCTAssertEqual(report.problemCount, 2)

        let repaired = try await store.verify(repair: true)
        XCTAssertEqual(repaired.quarantined, 1)
        XCTAssertEqual(repaired.removed, 1)
        let after = try await store.verify(repair: false)
        XCTAssertEqual(after.problemCount, 0)
        XCTAssertEqual(
            try server.listKeys(bucket: bucket, prefix: "media/v1/quarantine/"),
            ["media/v1/quarantine/\(tampered.hexDigest).jpg"])
        let gone = try await store.lookup(tampered)
        XCTAssertNil(gone)
    }

    func testMissingBucketGivesOneClearError() async throws {
        let (store, _) = try makeStore(bucket: "no-such-bucket")
        do {
            try await store.checkAccess()
            XCTFail("a missing bucket must fail the check")
        } catch {
            XCTAssertEqual(error.code, "object_storage")
            XCTAssertTrue(error.description.contains("bucket no-such-bucket does not exist"), error.description)
        }
    }

    func testWrongCredentialsGiveOneClearError() async throws {
        let server = try moto()
        let bucket = "richpush-creds-\(UUID().uuidString.prefix(6).lowercased())"
        try server.createBucket(bucket)
        let (store, _) = try makeStore(bucket: bucket, secret: "not-the-secret")
        do {
            try await store.checkAccess()
            XCTFail("a wrong secret must fail the check")
        } catch {
            XCTAssertEqual(error.code, "object_storage")
            XCTAssertTrue(error.description.contains("credentials refused"), error.description)
            XCTAssertTrue(error.description.contains("SignatureDoesNotMatch"), error.description)
            XCTAssertFalse(error.description.contains("not-the-secret"), "the secret must never be printed")
        }
    }
}
