import Foundation
import Synchronization
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushPipeline
import TestSupport

/// One document in, one result line out, with its bookkeeping: the document counted in flight exactly while it runs,
/// and every job recorded and logged exactly once.
final class DocumentProcessorTests: PipelineTestCase {
    /// What the job log saw: each job's id and status, and the documents in flight when it was called.
    private struct LoggedJob: Equatable {
        var id: String?
        var status: JobStatus
        var inFlight: Double?
    }

    private func process(
        _ document: String, line: Int? = nil, enricher: Enricher
    ) async -> (ResultLine, [LoggedJob], metrics: String) {
        let metrics = JobMetrics()
        let logged = Mutex<[LoggedJob]>([])
        let processor = DocumentProcessor(enricher: enricher, metrics: metrics) { result in
            let inFlight = Self.value(metrics.prometheusText(), "richpush_jobs_in_flight")
            logged.withLock { $0.append(LoggedJob(id: result.id, status: result.status, inFlight: inFlight)) }
        }
        let output = await processor.resultLine(for: Data(document.utf8), line: line)
        return (output, logged.withLock { $0 }, metrics.prometheusText())
    }

    func testOneJobIsCountedLoggedAndItsOwnLine() async throws {
        let (enricher, fetcher, _) = try makeEnricher()
        defer { fetcher.shutdown() }
        let (output, logged, metrics) = await process(
            #"{"id":"hero","payload":{"aps":{"alert":"a"},"image_url":"https://media.example.com/hero.jpg"}}"#, line: 7,
            enricher: enricher)
        XCTAssertEqual(logged, [LoggedJob(id: "hero", status: .enriched, inFlight: 1)])
        XCTAssertEqual(Self.value(metrics, "richpush_jobs_in_flight"), 0)
        XCTAssertEqual(Self.value(metrics, #"richpush_jobs_total{status="enriched"}"#), 1)
        XCTAssertEqual(Self.value(metrics, #"richpush_media_total{outcome="rendered"}"#), 1)
        XCTAssertEqual(output.status, .enriched)
        XCTAssertEqual(output.jobID, "hero")
        XCTAssertEqual(output.results.count, 1)
        // The job's own result object, byte for byte.
        XCTAssertEqual(output.bytes, try XCTUnwrap(output.results.first).json.serialized())
        XCTAssertEqual(try JSONParser.parse(output.bytes).value(at: "/line"), .number("7"))
    }

    func testManyJobsAreEachCountedAndLoggedUnderOneLine() async throws {
        let (enricher, fetcher, _) = try makeEnricher()
        defer { fetcher.shutdown() }
        let notifications = (1...3).map { #"{"content":"n\#($0)","platforms":[1]}"# }.joined(separator: ",")
        let document = #"{"request":{"application":"XXXXX-XXXXX","notifications":[\#(notifications)]}}"#
        let (output, logged, metrics) = await process(document, line: 4, enricher: enricher)
        XCTAssertEqual(logged.count, 3, "one log call per job")
        XCTAssertEqual(logged.map(\.inFlight), [1, 1, 1], "the document is counted once, while its jobs finish")
        XCTAssertEqual(Self.value(metrics, "richpush_jobs_in_flight"), 0)
        XCTAssertEqual(Self.value(metrics, #"richpush_jobs_total{status="passthrough"}"#), 3)
        XCTAssertEqual(Self.value(metrics, "richpush_job_duration_seconds_count"), 3)
        XCTAssertEqual(output.results.count, 3)
        XCTAssertNil(output.jobID, "a line of many jobs has no one job id")

        // The shape: {line, status, request, jobs}, the request once, the jobs without it.
        guard case .object(let line) = try JSONParser.parse(output.bytes) else { return XCTFail("not an object") }
        XCTAssertEqual(line.keys, ["line", "status", "request", "jobs"])
        XCTAssertEqual(line["line"], .number("4"))
        XCTAssertEqual(line["status"], .string("passthrough"))
        XCTAssertEqual(line["request"], output.results.first?.request)
        XCTAssertNotNil(line["request"]?.value(at: "/request/notifications"))
        guard case .array(let jobs)? = line["jobs"] else { return XCTFail("no jobs array") }
        XCTAssertEqual(jobs.count, 3)
        for (index, job) in jobs.enumerated() {
            XCTAssertNil(job.value(at: "/request"), "job \(index) repeats the request")
            XCTAssertEqual(job.value(at: "/apns/payload/aps/alert/body"), .string("n\(index + 1)"))
        }
        // Without a line number, no `line` key.
        let unnumbered = ResultLine(results: output.results, line: nil)
        XCTAssertNil(try JSONParser.parse(unnumbered.bytes).value(at: "/line"))
    }

    func testManyJobsTakeTheMostSevereStatus() throws {
        let statuses: [JobStatus] = [.passthrough, .fallback, .enriched]
        let line = ResultLine(results: statuses.map { JobResult(id: nil, status: $0) }, line: nil)
        XCTAssertEqual(line.status, .fallback)
        XCTAssertEqual(try JSONParser.parse(line.bytes).value(at: "/status"), .string("fallback"))
    }

    func testRejectedDocumentIsCountedAndLoggedOnce() async throws {
        let (output, logged, metrics) = await process(
            "{not json", line: 2, enricher: Enricher(checkingStructureOnly: EnricherConfiguration()))
        XCTAssertEqual(logged, [LoggedJob(id: nil, status: .rejected, inFlight: 1)])
        XCTAssertEqual(Self.value(metrics, "richpush_jobs_in_flight"), 0)
        XCTAssertEqual(Self.value(metrics, #"richpush_jobs_total{status="rejected"}"#), 1)
        XCTAssertEqual(Self.value(metrics, #"richpush_rejected_jobs_total{code="invalid_json"}"#), 1)
        XCTAssertEqual(output.status, .rejected)
        XCTAssertNil(output.jobID)
        let json = try JSONParser.parse(output.bytes)
        XCTAssertEqual(json.value(at: "/status"), .string("rejected"))
        XCTAssertEqual(json.value(at: "/line"), .number("2"))
    }
}
