import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushPayload
@testable import RichPushImaging
@testable import RichPushHTTP
@testable import RichPushCache
@testable import RichPushPipeline
import TestSupport

/// Shared set-up: a temporary cache, a local origin serving the bundled media, and an enricher over both.
class PipelineTestCase: XCTestCase {
    static let mediaDirectory = fixture("media")
    static let publicBase = "https://cdn.test/richpush"

    var temporaryDirectory: URL!

    override func setUpWithError() throws {
        temporaryDirectory = try makeTemporaryDirectory("pipeline")
    }

    func makeEnricher(
        allowNetworks: [String] = [],
        deadline: Duration = .seconds(10),
        cacheDirectory: URL? = nil,
        adjust: (inout EnricherConfiguration) -> Void = { _ in }
    ) throws -> (Enricher, Fetcher, FileMediaStore) {
        var fetch = FetchConfiguration()
        fetch.localOrigins = [try LocalOrigin(parsing: "https://media.example.com/=\(Self.mediaDirectory.path)")]
        fetch.allowNetworks = try allowNetworks.map { try IPNetwork($0) }
        let fetcher = try Fetcher(configuration: fetch)
        let root = cacheDirectory ?? temporaryDirectory.appendingPathComponent("cache", isDirectory: true)
        let store = try FileMediaStore(configuration: CacheConfiguration(root: root, publicBaseURL: Self.publicBase))
        var configuration = EnricherConfiguration(jobDeadline: deadline)
        adjust(&configuration)
        let enricher = Enricher(configuration: configuration, store: store, fetcher: fetcher)
        return (enricher, fetcher, store)
    }

    /// The value of one series (`name{labels}`) in a Prometheus text, or nil when absent.
    static func value(_ text: String, _ series: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.split(separator: " ").last!) }
    }

    func enrichOne(_ enricher: Enricher, _ json: String) async throws -> JobResult {
        let results = await enricher.enrich(document: Data(json.utf8))
        XCTAssertEqual(results.count, 1)
        return try XCTUnwrap(results.first)
    }
}

extension JobResult {
    func payloadValue(at pointer: String) -> JSONValue? { apns?.payload.value(at: pointer) }

    func header(_ name: String) -> String? { apns?.headers.first(where: { $0.name == name })?.value }
}
