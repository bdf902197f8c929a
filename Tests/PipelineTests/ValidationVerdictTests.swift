import Foundation
import XCTest
import RichPush
@testable import RichPushPipeline

/// The rule `validate` and `serve`'s `/v1/validate` share: what fails a job, with and without `--strict`.
final class ValidationVerdictTests: XCTestCase {
    private func job(_ status: JobStatus = .passthrough, _ diagnostics: [Diagnostic] = [], media: [MediaOutcome] = []) -> JobResult {
        var result = JobResult(id: "j", status: status, diagnostics: diagnostics)
        result.media = media.map { MediaResult(pointer: "/image_url", source: "https://a.example/x.jpg", variant: "attachment", outcome: $0, milliseconds: 1) }
        return result
    }

    private func diagnostic(_ severity: Diagnostic.Severity, _ code: DiagnosticCode) -> Diagnostic {
        Diagnostic(severity: severity, pointer: "/aps", code: code.rawValue, message: "m")
    }

    func testWhatFailsAJob() {
        let cases: [(String, JobResult, strict: Bool, fails: Bool)] = [
            ("clean", job(), false, false),
            ("rejected", job(.rejected), false, true),
            ("an error", job(.partial, [diagnostic(.error, .wrongType)]), false, true),
            ("a plain warning", job(.enriched, [diagnostic(.warning, .imageUpscaled)]), false, false),
            ("a plain warning, strict", job(.enriched, [diagnostic(.warning, .imageUpscaled)]), true, true),
            ("a warning that changes what is shown", job(.enriched, [diagnostic(.warning, .storyRemoved)]), false, true),
            ("failed media", job(.fallback, media: [.failed(RememberedFailure(code: .unsupportedFormat, message: "m"))]), false, true),
            ("media not fetched", job(.passthrough, media: [.notFetched]), false, false),
            ("media out of time", job(.partial, media: [.skipped(reason: "deadline")]), false, true),
        ]
        for (name, result, strict, fails) in cases {
            XCTAssertEqual(ValidationVerdict.fails(result, strict: strict), fails, name)
        }
    }

    func testReportLeavesTheSendersRequestOut() throws {
        var result = job()
        result.request = .object(["secret": .string("token")])
        let report = ValidationVerdict.jsonReport(file: "a.json", results: [result])
        XCTAssertEqual(report.value(at: "/file"), .string("a.json"))
        XCTAssertEqual(report.value(at: "/results/0/id"), .string("j"))
        XCTAssertNil(report.value(at: "/results/0/request"))
    }
}
