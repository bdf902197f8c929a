import Foundation
import Synchronization
import XCTest
import RichPush
import TestSupport
@testable import RichPushCore
@testable import RichPushPayload
@testable import RichPushImaging
@testable import RichPushHTTP
@testable import RichPushCache
@testable import RichPushPipeline

/// A fault of our own (configuration, allocation, a library misuse) says nothing about the origin: it is never
/// remembered as a negative entry, so a healthy worker on the same cache is not refused the URL, and it is counted.
final class LocalFaultTests: PipelineTestCase {
    private let job = #"{"aps":{"alert":"Hi"},"image_url":"https://media.example.com/hero.jpg"}"#
    private let log = RecordingLog()
    private let brokenJob = #"{"aps":{"alert":"Hi"},"image_url":"https://media.example.com/broken.jpg"}"#

    private func makeEnricher(variant: ImageVariant) throws -> (Enricher, Fetcher, FileMediaStore) {
        var fetch = FetchConfiguration()
        fetch.localOrigins = [try LocalOrigin(parsing: "https://media.example.com/=\(Self.mediaDirectory.path)")]
        let fetcher = try Fetcher(configuration: fetch)
        let root = temporaryDirectory.appendingPathComponent("cache", isDirectory: true)
        let store = try FileMediaStore(configuration: CacheConfiguration(root: root, publicBaseURL: Self.publicBase))
        let configuration = EnricherConfiguration(variants: ["attachment": variant, "story": .story], log: log)
        return (Enricher(configuration: configuration, store: store, fetcher: fetcher), fetcher, store)
    }

    private func storedOutcome(_ store: FileMediaStore, source: String, variant: ImageVariant) async -> CacheOutcome? {
        let key = CacheKey(sourceURL: source, variant: variant.cacheDescription, rendererVersion: ImagePipeline.rendererVersion)
        return await store.look(for: key, retainUntil: nil).outcome
    }

    func testLocalFaultIsNotRememberedAndIsCounted() async throws {
        var misconfigured = ImageVariant.attachment
        misconfigured.width = 0
        let (enricher, fetcher, store) = try makeEnricher(variant: misconfigured)
        defer { fetcher.shutdown() }

        let result = try await enrichOne(enricher, job)
        let media = try XCTUnwrap(result.media.first)
        XCTAssertEqual(media.status, .failed)
        XCTAssertEqual(media.errorCode, "unsupported_variant")
        XCTAssertTrue(media.isLocalFault)
        let stored = await storedOutcome(store, source: "https://media.example.com/hero.jpg", variant: misconfigured)
        XCTAssertNil(stored, "a fault of ours must not become a negative cache entry")

        let metrics = JobMetrics()
        metrics.record(result)
        XCTAssertTrue(metrics.prometheusText().contains("richpush_local_faults_total{code=\"unsupported_variant\"} 1"))
        XCTAssertEqual(log.events, ["error local_fault unsupported_variant"], "reported at error level through the sink")
    }

    func testWhatTheImageItselfIsStillRemembered() async throws {
        // The contrast that makes the test above meaningful: a corrupt source is the origin's answer.
        let (enricher, fetcher, store) = try makeEnricher(variant: .attachment)
        defer { fetcher.shutdown() }
        let result = try await enrichOne(enricher, brokenJob)
        let media = try XCTUnwrap(result.media.first)
        XCTAssertEqual(media.status, .failed)
        XCTAssertFalse(media.isLocalFault)
        guard case .failed? = await storedOutcome(store, source: "https://media.example.com/broken.jpg", variant: .attachment) else {
            return XCTFail("a broken image must be remembered as a negative entry")
        }
        let metrics = JobMetrics()
        metrics.record(result)
        XCTAssertFalse(metrics.prometheusText().contains("richpush_local_faults_total{"))
        XCTAssertEqual(log.events, [], "the origin's answer is no fault of ours")
    }

    /// Issue 36 item 2: a valid JPEG in a variant we do not render (12 bits, or its height in a DNL marker) is the
    /// origin's problem: `unsupported_format` with the reason, remembered like any permanent failure, never a fault
    /// of ours. Sent five times, each is fetched once, and nothing is logged or counted as a local fault.
    func testValidJPEGVariantsWeDoNotRenderAreTheOriginsAndRemembered() async throws {
        let origin = temporaryDirectory.appendingPathComponent("origin", isDirectory: true)
        try FileManager.default.createDirectory(at: origin, withIntermediateDirectories: true)
        try Data(contentsOf: fixture("conformance/jpeg/monkey12.jpg")).write(to: origin.appendingPathComponent("twelve.jpg"))
        try Self.dnlJPEG(from: Data(contentsOf: Self.mediaDirectory.appendingPathComponent("hero.jpg")))
            .write(to: origin.appendingPathComponent("dnl.jpg"))
        var fetch = FetchConfiguration()
        fetch.localOrigins = [try LocalOrigin(parsing: "https://media.example.com/=\(origin.path)")]
        let fetcher = try Fetcher(configuration: fetch)
        defer { fetcher.shutdown() }
        let store = try FileMediaStore(configuration: CacheConfiguration(
            root: temporaryDirectory.appendingPathComponent("cache", isDirectory: true), publicBaseURL: Self.publicBase))
        let enricher = Enricher(configuration: EnricherConfiguration(log: log), store: store, fetcher: fetcher)
        let metrics = JobMetrics()
        for name in ["twelve", "dnl"] {
            for _ in 0..<5 {
                let result = try await enrichOne(enricher, #"{"aps":{"alert":"Hi"},"image_url":"https://media.example.com/\#(name).jpg"}"#)
                metrics.record(result)
                let media = try XCTUnwrap(result.media.first)
                XCTAssertEqual(media.errorCode, .unsupportedFormat, name)
                XCTAssertFalse(media.isLocalFault, name)
                XCTAssertTrue(media.errorMessage?.contains(name == "twelve" ? "12-bit JPEG" : "DNL") == true, "\(media.errorMessage ?? "")")
            }
        }
        XCTAssertEqual(fetcher.statistics.snapshot.fetches, 2, "each source fetched once, then remembered")
        XCTAssertEqual(log.events, [])
        XCTAssertFalse(metrics.prometheusText().contains("richpush_local_faults_total{"))
    }

    /// `jpeg` with its frame height written as 0 and given in a DNL marker after the scan, as the standard allows.
    private static func dnlJPEG(from jpeg: Data) throws -> Data {
        var bytes = [UInt8](jpeg)
        let frame = try XCTUnwrap((0..<bytes.count - 1).first { bytes[$0] == 0xFF && (bytes[$0 + 1] == 0xC0 || bytes[$0 + 1] == 0xC2) })
        let height = [bytes[frame + 5], bytes[frame + 6]]
        bytes[frame + 5] = 0
        bytes[frame + 6] = 0
        let end = try XCTUnwrap((0..<bytes.count - 1).last { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xD9 })
        bytes.insert(contentsOf: [0xFF, 0xDC, 0x00, 0x04] + height, at: end)
        return Data(bytes)
    }

    func testCacheDiskFaultIsOursAndCounted() async throws {
        // cache_io is our fault: the cache's disk and permissions are ours, so it is logged and counted as one.
        let (enricher, fetcher, _) = try makeEnricher(variant: .attachment)
        defer { fetcher.shutdown() }
        let objects = temporaryDirectory.appendingPathComponent("cache/objects")
        try? FileManager.default.removeItem(at: objects)
        try Data("not a directory".utf8).write(to: objects)

        let result = try await enrichOne(enricher, job)
        let media = try XCTUnwrap(result.media.first)
        XCTAssertEqual(media.status, .failed)
        XCTAssertEqual(media.errorCode, .cacheIO)
        XCTAssertTrue(media.isLocalFault)
        let metrics = JobMetrics()
        metrics.record(result)
        XCTAssertTrue(metrics.prometheusText().contains("richpush_local_faults_total{code=\"cache_io\"} 1"))
        XCTAssertEqual(log.events, ["error local_fault cache_io"])
    }

    func testImageErrorsAnswerForThemselves() {
        XCTAssertTrue(ImageError.corrupt(reason: "x").isPermanent)
        XCTAssertFalse(ImageError.corrupt(reason: "x").isLocalFault)
        for transient in [ImageError.deadlineExceeded, .cancelled] {
            XCTAssertFalse(transient.isPermanent)
            XCTAssertFalse(transient.isLocalFault)
        }
        for ours in [ImageError.outOfMemory(bytes: 1), .encodeFailed(reason: "x"), .unsupportedVariant("x"),
                     .outputCheckFailed(reason: "x")] {
            XCTAssertTrue(ours.isLocalFault)
            XCTAssertFalse(ours.isPermanent, "a fault of ours is never remembered")
        }
        // Pipeline's wrapper names the source and keeps the image error's answers.
        let wrapped = MediaError.image(url: "https://a.test/x.jpg?sig=secret", .outOfMemory(bytes: 1))
        XCTAssertEqual(wrapped.code, "out_of_memory")
        XCTAssertTrue(wrapped.isLocalFault)
        XCTAssertFalse(wrapped.isPermanent)
        XCTAssertFalse(wrapped.description.contains("secret"))
        XCTAssertTrue(MediaError.corruptMedia(url: "https://a.test/x.mp4", format: .mp4, problem: "p").isPermanent)
    }

    func testFetchFaultsOfOurOwnAreNeverPermanent() {
        XCTAssertFalse(FetchError.invalidConfiguration(reason: "x").isPermanent)
        XCTAssertFalse(FetchError.internalFailure(url: "https://a.test/x", reason: "y").isPermanent)
        XCTAssertTrue(FetchError.internalFailure(url: "https://a.test/x", reason: "y").isLocalFault)
        XCTAssertFalse(FetchError.httpStatus(url: "https://a.test/x", code: 404).isLocalFault)
        XCTAssertTrue(FetchError.httpStatus(url: "https://a.test/x", code: 404).isPermanent)
    }
}

/// Keeps `level event code` of every event.
final class RecordingLog: LogSink {
    private let recorded = Mutex<[String]>([])

    var events: [String] { recorded.withLock { $0 } }

    func log(_ level: LogLevel, _ event: String, _ fields: [(String, JSONValue)]) {
        let code = fields.first { $0.0 == "code" }?.1.stringValue ?? ""
        recorded.withLock { $0.append("\(level.name) \(event) \(code)") }
    }
}
