import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushPayload
import TestSupport

final class ParserShapeTests: XCTestCase {
    func testShapeDetectionTable() {
        let cases: [(String, InputShape)] = [
            (#"{"aps":{"alert":"hi"}}"#, .apns),
            (#"{"id":"j1","token":"ab","payload":{"aps":{"alert":"hi"}}}"#, .envelope),
            (#"{"device_token":"ab","payload":{"aps":{}}}"#, .envelope),
            (#"{"tokens":["ab","cd"],"payload":{"orderId":7}}"#, .envelope),
            (#"{"payload":{"aps":{"alert":"hi"}},"tenant":"t"}"#, .envelope),
            (#"{"content":"hi","ios_title":"t"}"#, .pushwoosh),
            (#"{"platforms":[1],"content":"x"}"#, .pushwoosh),
            (#"{"title":"t","body":"b","image_url":"https://x.example/a.jpg"}"#, .pushfa),
            (#"{"body":"b","platform":"ios"}"#, .pushfa),
            (#"{"message":{"token":"t","notification":{"title":"T"}}}"#, .firebase),
        ]
        for (text, shape) in cases {
            XCTAssertEqual(PayloadHelpers.job(text)?.shape, shape, text)
        }
    }

    /// Guessing would turn an unknown body (an FCM message, a data dictionary) into a visible alert.
    func testUnrecognizedShapeIsRejectedUnlessForced() throws {
        XCTAssertEqual(PayloadHelpers.rejection(#"{"custom":1}"#)?.codes, ["unknown_shape"])
        var options = PayloadOptions()
        options.forcedShape = .apns
        let job = try XCTUnwrap(PayloadHelpers.job(#"{"custom":1}"#, options: options))
        XCTAssertEqual(job.shape, .apns)
        XCTAssertEqual(job.diagnostics, [])
    }

    func testForcedShape() throws {
        var options = PayloadOptions()
        options.forcedShape = .pushfa
        let job = try XCTUnwrap(PayloadHelpers.job(#"{"aps":{"x":1},"title":"Hello"}"#, options: options))
        XCTAssertEqual(job.shape, .pushfa)
        XCTAssertEqual(job.payload["aps"]?.value(at: "/alert/title"), .string("Hello"))
        XCTAssertEqual(job.target["aps"], PayloadHelpers.parse(#"{"x":1}"#))
    }

    func testRejectionsAreClear() {
        let cases: [(String, String)] = [
            ("{", "invalid_json"),
            ("[1]", "not_an_object"),
            (#"{"aps":"hello"}"#, "wrong_type"),
            (#"{"id":"1","payload":"x"}"#, "wrong_type"),
            (#"{"id":"1","token":"t","push_type":"liveactivity","payload":{"aps":{}}}"#, "invalid_push_type"),
            (#"{"title":"t","platform":"web"}"#, "platform_unknown"),
            (#"{"title":"t","platform":["ios"]}"#, "platform_unknown"),
            (#"{"request":{"notifications":[]}}"#, "empty_notification_list"),
            (#"{"request":{"notifications":[{"content":"a"},7]}}"#, "wrong_type"),
        ]
        for (text, code) in cases {
            let diagnostics = PayloadHelpers.rejection(text)
            XCTAssertNotNil(diagnostics, text)
            XCTAssertTrue(diagnostics?.contains { $0.code == code && $0.severity == .error } == true, "\(text): \(diagnostics ?? [])")
        }
    }

    func testInvalidJSONDiagnosticNamesLineAndColumn() throws {
        let diagnostics = try XCTUnwrap(PayloadHelpers.rejection("{\n\"aps\": {\"alert\": }\n}"))
        XCTAssertEqual(diagnostics.first?.code, "invalid_json")
        XCTAssertTrue(diagnostics.first?.message.contains("line 2, column 18") == true, diagnostics.first?.message ?? "")
    }

    func testDeepNestingIsRejectedNotCrashed() throws {
        let deep = "{\"aps\":{},\"x\":" + String(repeating: "[", count: 70) + String(repeating: "]", count: 70) + "}"
        let diagnostics = try XCTUnwrap(PayloadHelpers.rejection(deep))
        XCTAssertTrue(diagnostics[0].message.contains("deeper than 64"))
    }

    func testDuplicateKeyWarning() throws {
        let job = try XCTUnwrap(PayloadHelpers.job(#"{"aps":{"alert":"a","alert":"b"}}"#))
        XCTAssertEqual(job.payload["aps"]?.value(at: "/alert"), .string("b"))
        XCTAssertTrue(job.diagnostics.contains { $0.code == "duplicate_key" && $0.pointer == "/aps/alert" })
    }

    func testEnvelopeFieldsAndPassthrough() throws {
        let text = #"{"id":42,"token":"abc","topic":"com.example.app","priority":5,"collapse_id":"c1","expiration":1900000000,"tenant":"t-9","payload":{"aps":{"alert":{"title":"T","body":"B"}}}}"#
        let job = try XCTUnwrap(PayloadHelpers.job(text))
        XCTAssertEqual(job.id, "42")
        XCTAssertEqual(job.deviceToken, "abc")
        XCTAssertEqual(job.headers, NotificationHeaders(topic: "com.example.app", collapseID: "c1", priority: 5, expiration: 1_900_000_000))
        XCTAssertEqual(job.target["tenant"], .string("t-9"))
        let (request, _) = try XCTUnwrap(PayloadHelpers.render(job, media: [:]))
        XCTAssertEqual(request.headers.map(\.name), ["apns-push-type", "apns-priority", "apns-topic", "apns-collapse-id", "apns-expiration"])
        XCTAssertEqual(request.header("apns-priority"), "5")
        XCTAssertEqual(request.header("apns-expiration"), "1900000000")
        XCTAssertEqual(request.target["tenant"], .string("t-9"))
    }

    func testCollapseIDLimit() {
        let ok = #"{"id":"1","collapse_id":""# + String(repeating: "a", count: 64) + #"","payload":{"aps":{}}}"#
        XCTAssertNotNil(PayloadHelpers.job(ok))
        let long = #"{"id":"1","collapse_id":""# + String(repeating: "é", count: 33) + #"","payload":{"aps":{}}}"#
        XCTAssertEqual(PayloadHelpers.rejection(long)?.codes, ["collapse_id_too_long"])
    }

    /// Every key with no meaning to us comes out byte-for-byte as it went in, including number text and order.
    func testUnknownKeysRoundTripByteForByte() throws {
        let custom = #""zeta":{"b":1.0e+2,"a":[true,null,"\u00e9/😀"]},"big":123456789012345678901234567890,"alpha":-0.50"#
        let text = #"{"aps":{"alert":{"title":"T","body":"B"},"thread-id":"x","x-custom":{"k":1}},"# + custom + "}"
        let job = try XCTUnwrap(PayloadHelpers.job(text))
        let (request, _) = try XCTUnwrap(PayloadHelpers.render(job, media: [:]))
        let output = PayloadHelpers.text(request.payload)
        XCTAssertEqual(output, #"{"aps":{"alert":{"title":"T","body":"B"},"thread-id":"x","x-custom":{"k":1}},"zeta":{"b":1.0e+2,"a":[true,null,"é/😀"]},"big":123456789012345678901234567890,"alpha":-0.50}"#)
    }

    func testPushwooshRequestGivesOneJobPerNotification() throws {
        let text = #"{"request":{"application":"APP-1","auth":"secret","notifications":[{"content":"one","send_date":"now"},{"content":"two","devices":["d"]}]}}"#
        let jobs = PayloadHelpers.jobs(text)
        XCTAssertEqual(jobs.count, 2)
        XCTAssertEqual(jobs.map { $0.payload["aps"]?.value(at: "/alert/body") }, [.string("one"), .string("two")])
        XCTAssertEqual(jobs[0].target["send_date"], .string("now"))
        XCTAssertEqual(jobs[1].target["devices"], PayloadHelpers.parse(#"["d"]"#))
        XCTAssertEqual(jobs[0].target["application"], .string("APP-1"))
        XCTAssertNil(jobs[0].target["auth"], "the API token stays in the request alone")
    }

    func testSilentDetection() throws {
        let cases: [(String, Bool, PushType)] = [
            (#"{"aps":{"content-available":1}}"#, true, .background),
            (#"{"aps":{"content-available":1,"alert":"x"}}"#, false, .alert),
            // Issue 26: "silent" is no APNs key: in a raw payload it is the app's data and changes nothing.
            (#"{"aps":{"alert":"x"},"silent":true}"#, false, .alert),
            (#"{"id":"1","token":"t","silent":true,"payload":{"aps":{"alert":"x"}}}"#, true, .background),
            // Issue 26: a badge or a sound is user-visible, so content-available with one is an alert push.
            (#"{"aps":{"content-available":1,"badge":3}}"#, false, .alert),
            (#"{"aps":{"content-available":1,"sound":"a"}}"#, false, .alert),
            (#"{"title":"x","silent":true}"#, true, .background),
            (#"{"content":"x","ios_silent":1}"#, true, .background),
            (#"{"id":"1","token":"t","push_type":"background","payload":{"aps":{"alert":"x"}}}"#, true, .background),
            (#"{"id":"1","token":"t","push_type":"voip","payload":{"aps":{},"image":"https://x.example/a.jpg"}}"#, false, .voip),
        ]
        for (text, silent, type) in cases {
            let job = PayloadHelpers.job(text)
            XCTAssertEqual(job?.isSilent, silent, text)
            XCTAssertEqual(job?.pushType, type, text)
            if silent || type == .voip { XCTAssertEqual(job?.media, [], text) }
        }
    }
}

final class DiagnosticDocumentationTests: XCTestCase {
    func testEveryCodeIsDocumented() throws {
        let url = packageRoot.appendingPathComponent("docs/diagnostic-codes.md")
        let text = try String(contentsOf: url, encoding: .utf8)
        let rows = text.split(separator: "\n")
        for code in DiagnosticCode.allCases {
            guard let row = rows.first(where: { $0.hasPrefix("| `\(code.rawValue)` |") }) else {
                XCTFail("\(code.rawValue) missing from docs/diagnostic-codes.md")
                continue
            }
            // The fix column is the text the JSON reports carry as `fix`.
            let fix = row.split(separator: "|").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            XCTAssertEqual(fix.replacingOccurrences(of: "`", with: ""), code.fix, code.rawValue)
        }
    }
}
