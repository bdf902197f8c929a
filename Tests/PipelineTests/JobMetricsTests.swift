import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushPayload
@testable import RichPushImaging
@testable import RichPushHTTP
@testable import RichPushCache
@testable import RichPushPipeline

/// The Prometheus text: every family an operator alerts on, with values that follow from the jobs recorded.
final class JobMetricsTests: PipelineTestCase {
    func value(_ text: String, _ series: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.split(separator: " ").last!) }
    }

    func testFamiliesFollowTheRecordedJobs() async throws {
        let (enricher, fetcher, _) = try makeEnricher()
        defer { fetcher.shutdown() }
        let metrics = JobMetrics(fetcher: fetcher)
        let documents = [
            #"{"aps":{"alert":"a"},"image_url":"https://media.example.com/hero.jpg"}"#,
            #"{"aps":{"alert":"b"},"image_url":"https://media.example.com/broken.jpg"}"#,
            #"{"aps":{"content-available":1}}"#,
        ]
        var published = 0
        for document in documents {
            metrics.documentStarted()
            XCTAssertEqual(value(metrics.prometheusText(), "richpush_jobs_in_flight"), 1)
            for result in await enricher.enrich(document: Data(document.utf8)) {
                metrics.record(result)
                published += result.media.filter { $0.status == .rendered }.compactMap(\.published?.bytes).reduce(0, +)
            }
            metrics.documentFinished()
        }
        let text = metrics.prometheusText()
        XCTAssertTrue(text.contains("richpush_build_info{version=\"\(RichPushInfo.version)\"} 1"))
        XCTAssertEqual(value(text, "richpush_jobs_in_flight"), 0)
        XCTAssertEqual(value(text, #"richpush_jobs_total{status="enriched"}"#), 1)
        XCTAssertEqual(value(text, #"richpush_jobs_total{status="fallback"}"#), 1)
        XCTAssertEqual(value(text, #"richpush_jobs_total{status="passthrough"}"#), 1)
        XCTAssertTrue(text.contains("richpush_media_failures_total{code=\"unsupported_format\"} 1"), text)
        XCTAssertGreaterThan(published, 0)
        XCTAssertEqual(value(text, "richpush_published_bytes_total"), Double(published))
        let sources = try ["hero.jpg", "broken.jpg"].map { try Data(contentsOf: Self.mediaDirectory.appendingPathComponent($0)).count }
        XCTAssertEqual(value(text, "richpush_fetched_bytes_total"), Double(sources.reduce(0, +)))
        XCTAssertEqual(value(text, "richpush_fetch_duration_seconds_count"), 2)
        XCTAssertEqual(value(text, "richpush_job_duration_seconds_count"), 3)
        // The passthrough job takes microseconds: the sub-millisecond buckets exist and count it.
        XCTAssertGreaterThanOrEqual(value(text, #"richpush_job_duration_seconds_bucket{le="0.001"}"#) ?? 0, 1)
        XCTAssertNotNil(value(text, #"richpush_job_duration_seconds_bucket{le="0.0001"}"#))
    }
}

extension JobMetricsTests {
    /// Passed-through media are misses whose bytes were published, under an outcome of their own.
    func testPassedThroughMediaAreCountedAsPublishedMisses() throws {
        let metrics = JobMetrics()
        let passed = MediaResult(
            pointer: "/image_url", source: "https://a.example/clip.mp4", variant: "attachment",
            outcome: .published(
                PublishedMedia(publicURL: "https://cdn.test/x.mp4", format: .mp4, bytes: 4_000, size: nil),
                .passedThrough),
            milliseconds: 3)
        let rendered = MediaResult(
            pointer: "/att/b", source: "https://a.example/b.jpg", variant: "attachment",
            outcome: .published(
                PublishedMedia(
                    publicURL: "https://cdn.test/b.jpg", format: .jpeg, bytes: 1_000,
                    size: PixelSize(width: 10, height: 10)),
                .rendered),
            milliseconds: 5)
        XCTAssertEqual(Enricher.status(of: [passed]), .enriched)
        XCTAssertEqual(Enricher.status(of: [passed, rendered]), .enriched)
        var result = JobResult(id: "m", status: .enriched)
        result.media = [passed, rendered]
        metrics.record(result)
        let text = metrics.prometheusText()
        XCTAssertEqual(value(text, #"richpush_media_total{outcome="passed_through"}"#), 1)
        XCTAssertEqual(value(text, "richpush_cache_misses_total"), 2)
        XCTAssertEqual(value(text, "richpush_published_bytes_total"), 5_000)
    }
}
