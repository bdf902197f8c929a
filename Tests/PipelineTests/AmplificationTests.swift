import Foundation
import XCTest
import RichPush
@testable import RichPushPayload
@testable import RichPushPipeline
import TestSupport

/// One document's output and work grow with the document, not with its notifications times its findings.
final class PipelineAmplificationTests: PipelineTestCase {
    /// The issue's 20 KB Pushwoosh document of duplicate keys answered 193 MB: every notification's result carried
    /// every duplicate. Now the findings are capped and go with the first result only.
    func testDuplicateKeyRequestAnswersInProportionToItsSize() async throws {
        let notifications = (0..<100).map { #"{"content":"n\#($0)"}"# }.joined(separator: ",")
        let duplicates = (0..<2_150).map { #""k":\#($0)"# }.joined(separator: ",")
        let document = Data(#"{"request":{"notifications":[\#(notifications)]},\#(duplicates)}"#.utf8)
        XCTAssertGreaterThan(document.count, 19_000)
        let results = await Enricher(checkingStructureOnly: EnricherConfiguration()).enrich(document: document)
        XCTAssertEqual(results.count, 100)
        // The line `process` prints: the document's one request, and each job without it.
        let output = ResultLine(results: results, line: nil).bytes.count
        XCTAssertLessThan(output, 4 * document.count, "\(output) bytes of results for \(document.count) bytes of input")
        XCTAssertEqual(results.flatMap(\.diagnostics).filter { $0.code == "duplicate_key" }.count, 10)
    }

    /// A request's notifications run inside the document's width: at concurrency 1, one fetch at a time.
    func testRequestNotificationsStayWithinTheConcurrency() async throws {
        let origin = try LoopbackOrigin.shared()
        let run = UUID().uuidString
        let notifications = (0..<6).map { #"{"content":"n\#($0)","ios_attachment":"\#(origin.url("/slow/150/\(run)-\($0)"))"}"# }
        let document = Data(#"{"request":{"notifications":[\#(notifications.joined(separator: ","))]}}"#.utf8)
        for width in [1, 3] {
            let (enricher, fetcher, _) = try makeEnricher(allowNetworks: ["127.0.0.1/32"], cacheDirectory:
                temporaryDirectory.appendingPathComponent("cache-\(width)")) { $0.notificationConcurrency = width }
            defer { fetcher.shutdown() }
            _ = origin.takeSlowPeak()
            let results = await enricher.enrich(document: document)
            XCTAssertEqual(results.count, 6)
            XCTAssertEqual(results.map { $0.media.count }, Array(repeating: 1, count: 6))
            let peak = origin.takeSlowPeak()
            XCTAssertGreaterThanOrEqual(peak, 1)
            XCTAssertLessThanOrEqual(peak, width, "at most \(width) notifications' fetches at once")
        }
    }

    /// Each document fetches as one owner: a request of stalling notifications leaves half the host's connections,
    /// so another document's media on the same host arrive before their deadline.
    func testStallingDocumentDoesNotStarveAnotherOnTheSameHost() async throws {
        let origin = try LoopbackOrigin.shared()
        let (enricher, fetcher, _) = try makeEnricher(allowNetworks: ["127.0.0.1/32"])
        defer { fetcher.shutdown() }
        let run = UUID().uuidString
        let stalls = (0..<10).map { #"{"content":"s\#($0)","ios_attachment":"\#(origin.url("/stall/\(run)-\($0)"))"}"# }
        let stalling = Data(#"{"request":{"notifications":[\#(stalls.joined(separator: ","))]}}"#.utf8)
        let stalled = Task { await enricher.enrich(document: stalling, deadline: .now + .seconds(8)) }
        // The stalling document asks first and gets the host's connections it may have.
        try await waitUntil(timeout: .seconds(10), "the stalling document to hold its connections", interval: .milliseconds(5)) {
            (0..<10).reduce(0) { $0 + origin.count("/stall/\(run)-\($1)") } >= fetcher.configuration.maximumConnectionsPerHostPerOwner
        }
        // Audio passes through unrendered, so only the connections decide whether these make their deadline.
        let sounds = (0..<8).map { #"{"content":"a\#($0)","ios_attachment":"\#(origin.url("/typed/mp3/2000"))?n=\#(run)-\#($0)"}"# }
        let other = Data(#"{"request":{"notifications":[\#(sounds.joined(separator: ","))]}}"#.utf8)
        let results = await enricher.enrich(document: other, deadline: .now + .seconds(3))
        XCTAssertEqual(results.map(\.status), Array(repeating: .enriched, count: 8),
                       "\(results.flatMap(\.media).map { $0.errorMessage ?? "ok" })")
        stalled.cancel()
        _ = await stalled.value
    }
}
