import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushPayload

/// Issue 17 item 1 by example: what the sender needs to send a result (the addressing in `target`, `apns-topic`).
final class TargetTests: XCTestCase {
    private func rendered(_ text: String, options: PayloadOptions = PayloadOptions()) throws -> [APNsRequest] {
        try PayloadHelpers.jobs(text, options: options).map { job in
            try XCTUnwrap(PayloadHelpers.render(job, media: PayloadHelpers.renderedMedia(for: job), options: options)).0
        }
    }

    func testEnvelopeTokenAndUnknownKeysAreInTarget() throws {
        let request = try XCTUnwrap(try rendered(#"{"id":"e","token":"abcd","tokens":["t1","t2"],"topic":"com.example.app","tenant":{"id":9},"payload":{"aps":{"alert":"x"}}}"#).first)
        XCTAssertEqual(PayloadHelpers.text(.object(request.target)), #"{"token":"abcd","tokens":["t1","t2"],"tenant":{"id":9}}"#)
        XCTAssertEqual(request.deviceToken, "abcd")
        XCTAssertEqual(request.header("apns-topic"), "com.example.app")
    }

    func testPushwooshAddressingIsInTarget() throws {
        let text = #"{"request":{"application":"APP-1","auth":"secret","notifications":[{"content":"hi","devices":["d1"],"users":["u1"],"filter":"F","platforms":[1],"send_date":"now","campaign":"C-1"}]}}"#
        let request = try XCTUnwrap(try rendered(text).first)
        XCTAssertEqual(PayloadHelpers.text(.object(request.target)),
                       #"{"devices":["d1"],"users":["u1"],"filter":"F","platforms":[1],"send_date":"now","campaign":"C-1","application":"APP-1"}"#)
    }

    func testPushfaTargetingIsInTarget() throws {
        let text = #"{"title":"t","body":"b","subscriber_ids":["s1"],"label":"vip","values":["gold"],"only_last_device":true,"topic":"news","token":"5d1f","sendTime":"2026-12-03T10:00:00Z"}"#
        let request = try XCTUnwrap(try rendered(text).first)
        XCTAssertEqual(PayloadHelpers.text(.object(request.target)),
                       #"{"subscriber_ids":["s1"],"label":"vip","values":["gold"],"only_last_device":true,"topic":"news","token":"5d1f","sendTime":"2026-12-03T10:00:00Z"}"#)
        XCTAssertNil(request.header("apns-topic"), "Pushfa's topic is a subscriber topic, not the bundle id")
    }

    func testTopicOptionAndVoIPSuffix() throws {
        var options = PayloadOptions()
        options.topic = "com.example.shop"
        let alert = try XCTUnwrap(try rendered(#"{"title":"t","body":"b"}"#, options: options).first)
        XCTAssertEqual(alert.header("apns-topic"), "com.example.shop")
        let own = try XCTUnwrap(try rendered(#"{"token":"a","topic":"com.example.other","payload":{"aps":{"alert":"x"}}}"#, options: options).first)
        XCTAssertEqual(own.header("apns-topic"), "com.example.other", "the input's topic wins")
        let voip = try XCTUnwrap(try rendered(#"{"token":"a","push_type":"voip","payload":{"aps":{}}}"#, options: options).first)
        XCTAssertEqual(voip.header("apns-topic"), "com.example.shop.voip")
        let voipWithSuffix = try XCTUnwrap(try rendered(#"{"token":"a","topic":"com.example.shop.voip","push_type":"voip","payload":{"aps":{}}}"#).first)
        XCTAssertEqual(voipWithSuffix.header("apns-topic"), "com.example.shop.voip")
    }
}
