import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushPayload

/// A document's findings and jobs grow with the document, never with its square.
final class AmplificationTests: XCTestCase {
    /// `{"aps":{...},"k":0,"k":1,...}`: `count` duplicates of one key.
    private func duplicates(_ count: Int) -> String {
        (0..<count).map { #""k":\#($0)"# }.joined(separator: ",")
    }

    func testDuplicateKeysAreListedTenTimesThenCounted() throws {
        let job = try XCTUnwrap(PayloadHelpers.job(#"{"aps":{"alert":"a"},"# + duplicates(1_001) + "}"))
        let duplicateKeys = job.diagnostics.filter { $0.code == "duplicate_key" }
        XCTAssertEqual(duplicateKeys.count, 10)
        let omitted = job.diagnostics.filter { $0.code == "diagnostics_omitted" }
        XCTAssertEqual(omitted.count, 1)
        XCTAssertEqual(omitted.first?.severity, .warning)
        XCTAssertTrue(omitted.first?.message.hasPrefix("990 more duplicate_key findings were left out") == true, "\(omitted)")
    }

    func testCappingKeepsTheMostSevereAndIsIdempotent() {
        let list = (0..<5).map { Diagnostic(severity: .warning, pointer: "/\($0)", code: "wrong_type", message: "w") }
            + [Diagnostic(severity: .error, pointer: "/e", code: "wrong_type", message: "e"),
               Diagnostic(severity: .info, pointer: "/i", code: "story_json_string", message: "i")]
        let capped = list.cappedPerCode(3)
        XCTAssertEqual(capped.map(\.code), ["wrong_type", "wrong_type", "wrong_type", "diagnostics_omitted", "story_json_string"])
        XCTAssertEqual(capped[3].severity, .error, "an omitted error keeps the summary an error")
        XCTAssertEqual(capped.cappedPerCode(3), capped)
    }

    /// Findings about the whole request appear once, in the first notification's job, not in every job.
    func testSharedFindingsGoWithTheFirstJobOnly() {
        let notifications = (0..<50).map { #"{"content":"n\#($0)"}"# }.joined(separator: ",")
        let text = #"{"request":{"auth":"secret","notifications":[\#(notifications)]},"# + duplicates(300) + "}"
        let jobs = PayloadHelpers.jobs(text)
        XCTAssertEqual(jobs.count, 50)
        XCTAssertEqual(jobs[0].diagnostics.map(\.code).filter { $0 == "duplicate_key" }.count, 10)
        XCTAssertEqual(jobs.dropFirst().map(\.diagnostics.count), Array(repeating: 0, count: 49))
    }

    func testRequestOverTheNotificationLimitIsRejectedWithAPointer() throws {
        var options = PayloadOptions()
        options.maximumNotificationsPerRequest = 3
        let accepted = (0..<3).map { #"{"content":"n\#($0)"}"# }.joined(separator: ",")
        XCTAssertEqual(PayloadHelpers.jobs(#"{"request":{"notifications":[\#(accepted)]}}"#, options: options).count, 3)
        let text = #"{"request":{"notifications":[\#(accepted),{"content":"four"}]}}"#
        let diagnostics = try XCTUnwrap(PayloadHelpers.rejection(text, options: options))
        XCTAssertEqual(diagnostics.map(\.code), ["too_many_notifications"])
        XCTAssertEqual(diagnostics.first?.pointer, "/request/notifications")
        XCTAssertTrue(diagnostics.first?.message.contains("4 notifications") == true, "\(diagnostics)")
        XCTAssertEqual(PayloadOptions().maximumNotificationsPerRequest, 100)
    }

    /// Many bad notifications in a rejected request: at most ten findings of their code, then the count.
    func testRejectedRequestListsAtMostTenFindingsOfACode() throws {
        let notifications = Array(repeating: "7", count: 60).joined(separator: ",")
        let diagnostics = try XCTUnwrap(PayloadHelpers.rejection(#"{"request":{"notifications":[\#(notifications)]}}"#))
        XCTAssertEqual(diagnostics.filter { $0.code == "wrong_type" }.count, 10)
        XCTAssertEqual(diagnostics.last?.code, "diagnostics_omitted")
        XCTAssertEqual(diagnostics.last?.severity, .error)
    }
}
