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
            XCTAssertEqual(Self.value(metrics.prometheusText(), "richpush_jobs_in_flight"), 1)
            for result in await enricher.enrich(document: Data(document.utf8)) {
                metrics.record(result)
                published += result.media.filter { $0.status == .rendered }.compactMap(\.published?.bytes).reduce(0, +)
            }
            metrics.documentFinished()
        }
        let text = metrics.prometheusText()
        XCTAssertTrue(text.contains("richpush_build_info{version=\"\(RichPushInfo.version)\"} 1"))
        XCTAssertEqual(Self.value(text, "richpush_jobs_in_flight"), 0)
        XCTAssertEqual(Self.value(text, #"richpush_jobs_total{status="enriched"}"#), 1)
        XCTAssertEqual(Self.value(text, #"richpush_jobs_total{status="fallback"}"#), 1)
        XCTAssertEqual(Self.value(text, #"richpush_jobs_total{status="passthrough"}"#), 1)
        XCTAssertTrue(text.contains("richpush_media_failures_total{code=\"unsupported_format\"} 1"), text)
        XCTAssertGreaterThan(published, 0)
        XCTAssertEqual(Self.value(text, "richpush_published_bytes_total"), Double(published))
        let sources = try ["hero.jpg", "broken.jpg"].map { try Data(contentsOf: Self.mediaDirectory.appendingPathComponent($0)).count }
        XCTAssertEqual(Self.value(text, "richpush_fetched_bytes_total"), Double(sources.reduce(0, +)))
        XCTAssertEqual(Self.value(text, "richpush_fetch_duration_seconds_count"), 2)
        XCTAssertEqual(Self.value(text, "richpush_job_duration_seconds_count"), 3)
        // The passthrough job takes microseconds: the sub-millisecond buckets exist and count it.
        XCTAssertGreaterThanOrEqual(Self.value(text, #"richpush_job_duration_seconds_bucket{le="0.001"}"#) ?? 0, 1)
        XCTAssertNotNil(Self.value(text, #"richpush_job_duration_seconds_bucket{le="0.0001"}"#))
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
        XCTAssertEqual(Self.value(text, #"richpush_media_total{outcome="passed_through"}"#), 1)
        XCTAssertEqual(Self.value(text, "richpush_cache_misses_total"), 2)
        XCTAssertEqual(Self.value(text, "richpush_published_bytes_total"), 5_000)
        XCTAssertEqual(Self.value(text, #"richpush_renders_total{variant="attachment"}"#), 2)
    }

    /// Renders are counted per variant, so the Android renditions show beside the iOS ones; a cache hit is no render.
    func testRendersAreCountedPerVariant() throws {
        let metrics = JobMetrics()
        func media(_ variant: String, _ publication: MediaOutcome.Publication) -> MediaResult {
            MediaResult(pointer: "/p", source: "https://a.example/b.jpg", variant: variant, platform: .android,
                        outcome: .published(PublishedMedia(publicURL: "https://cdn.test/b.webp", format: .webp, bytes: 10,
                                                           size: PixelSize(width: 1, height: 1)), publication),
                        milliseconds: 1)
        }
        var result = JobResult(id: "v", status: .enriched)
        result.media = [media(VariantName.bigPicture, .rendered), media(VariantName.bigPicture, .rendered),
                        media(VariantName.largeIcon, .rendered), media(VariantName.largeIcon, .cached)]
        metrics.record(result)
        let text = metrics.prometheusText()
        XCTAssertEqual(Self.value(text, #"richpush_renders_total{variant="big_picture"}"#), 2)
        XCTAssertEqual(Self.value(text, #"richpush_renders_total{variant="large_icon"}"#), 1)
        XCTAssertNil(Self.value(text, #"richpush_renders_total{variant="story"}"#))
    }
}

extension JobMetricsTests {
    /// Parses the text exposition format strictly enough to catch a malformed line: every sample is
    /// `name{labels} value` with a numeric value, and belongs to a family declared by a `# TYPE` line before it.
    func parsedSamples(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> [String: Double] {
        var declared: [String: String] = [:]
        var samples: [String: Double] = [:]
        for row in text.split(separator: "\n") {
            if row.hasPrefix("# TYPE ") {
                let parts = row.split(separator: " ")
                XCTAssertEqual(parts.count, 4, String(row), file: file, line: line)
                declared[String(parts[2])] = String(parts[3])
                continue
            }
            if row.hasPrefix("# HELP ") { continue }
            let parts = row.split(separator: " ")
            XCTAssertEqual(parts.count, 2, String(row), file: file, line: line)
            let series = String(parts[0])
            let name = String(series.prefix { $0 != "{" })
            let family = declared.keys.first { declaredName in
                name == declaredName
                    || (name.hasPrefix(declaredName) && ["_bucket", "_sum", "_count"].contains(String(name.dropFirst(declaredName.count))))
            }
            XCTAssertNotNil(family, "\(name) has no # TYPE line", file: file, line: line)
            XCTAssertNotNil(Double(parts[1]), String(row), file: file, line: line)
            samples[series] = Double(parts[1])
        }
        return samples
    }

    func testProcessFamiliesReportThisProcess() throws {
        let metrics = JobMetrics()
        let before = parsedSamples(metrics.prometheusText())
        for family in ["process_cpu_seconds_total", "process_resident_memory_bytes", "process_open_fds", "process_start_time_seconds"] {
            XCTAssertNotNil(before[family], "\(family) missing")
        }
        XCTAssertTrue(metrics.prometheusText().contains("# TYPE process_cpu_seconds_total counter"))

        // Five more open files are five more descriptors; a busy loop is more CPU time.
        let handles = try (0..<5).map { _ in try XCTUnwrap(FileHandle(forReadingAtPath: "/proc/self/stat")) }
        // Busy until getrusage says 0.3 s more CPU time went by (on shared cores, wall time says nothing).
        func cpuSeconds() -> Double {
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
                + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1_000_000
        }
        var sum = 0.0
        let cpuBefore = cpuSeconds()
        while cpuSeconds() - cpuBefore < 0.3 { for index in 0..<10_000 { sum += sqrt(Double(index)) } }
        let after = parsedSamples(metrics.prometheusText())
        for handle in handles { try handle.close() }
        XCTAssertGreaterThan(sum, 0)
        func change(_ family: String) throws -> Double { try XCTUnwrap(after[family]) - XCTUnwrap(before[family]) }
        XCTAssertEqual(try change("process_open_fds"), 5, accuracy: 1)
        XCTAssertGreaterThanOrEqual(try change("process_cpu_seconds_total"), 0.25)

        // Resident memory is at most the peak the kernel reports (ru_maxrss, in KB), and at least a few MB.
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let resident = try XCTUnwrap(after["process_resident_memory_bytes"])
        XCTAssertGreaterThan(resident, 4_000_000)
        XCTAssertLessThanOrEqual(resident, Double(usage.ru_maxrss) * 1024 + 4096)
        // Started before now, and (this test process) within the last day.
        let now = Date().timeIntervalSince1970
        let started = try XCTUnwrap(after["process_start_time_seconds"])
        XCTAssertLessThanOrEqual(started, now + 1)
        XCTAssertGreaterThan(started, now - 86_400)
    }
}
