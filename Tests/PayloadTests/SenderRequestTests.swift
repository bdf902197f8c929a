import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushPayload

/// Issue 26: every sender gets its own request back, in its own shape, with only the media URLs and the fields the
/// shape needs changed; every other byte (key order, number text, credentials) as it sent them.
final class SenderRequestTests: XCTestCase {
    /// One document per shape, and the only pointers its request may differ at.
    private let cases: [(name: String, document: String, changes: [String])] = [
        ("apns", #"{"aps":{"alert":"x"},"image_url":"https://m.example/1.jpg","n":1.50,"z":[1e2,-0.0]}"#,
         ["/image_url", "/aps"]),
        ("envelope", #"{"id":"e1","token":"ab","tenant":7,"payload":{"aps":{"alert":"x"},"attachment":"https://m.example/1.jpg"},"x":1.0}"#,
         ["/payload/attachment", "/payload/aps"]),
        ("pushwoosh request", #"""
         {"request":{"application":"APP-1","auth":"SECRET","notifications":[
          {"content":"Hi","ios_attachment":"https://m.example/a.jpg","ios_badges":"+1","send_date":"now",
           "data":{"k":1.50,"pw_stories":{"pages":[{"image":"https://m.example/s1.jpg","title":"One","duration":"7"}]}}},
          {"content":{"en":"Hello","de":"Hallo"},"data":"{\"pw_stories\":{\"pages\":[{\"image\":\"https://m.example/s2.jpg\"}]},\"z\":2}",
           "ios_category_custom":"SHOP_STORIES","ios_root_params":{"aps":{"thread-id":"t"},"x":1}}]},"extra":true}
         """#,
         ["/request/notifications/0/ios_attachment", "/request/notifications/0/data",
          "/request/notifications/0/ios_root_params", "/request/notifications/0/ios_category_custom",
          "/request/notifications/1/data", "/request/notifications/1/ios_root_params"]),
        ("fcm", #"{"validate_only":false,"message":{"token":"fcm","notification":{"title":"T","body":"B","image":"https://m.example/1.jpg"},"data":{"k":"v"},"apns":{"headers":{"apns-priority":"10"}}}}"#,
         ["/message/notification/image", "/message/apns/payload"]),
        ("pushfa", #"{"title":"t","body":"b","image_url":"https://m.example/1.jpg","link_url":"tel:+1555","additional_data":{"order":7},"api_private_key":"PRIVATE","token":"tok","sendTime":"2026-12-03T10:00:00Z"}"#,
         ["/image_url"]),
        ("onesignal", #"{"app_id":"APP","include_subscription_ids":["s1"],"headings":{"en":"Sale","de":"Angebot"},"contents":{"en":"Big sale"},"ios_attachments":{"id1":"https://m.example/1.jpg"},"data":{"order":7},"url":"myapp://sale"}"#,
         ["/ios_attachments/id1", "/mutable_content"]),
    ]

    private func request(for document: String) throws -> (request: JSONValue, jobs: [NotificationJob]) {
        let jobs = PayloadHelpers.jobs(document)
        XCTAssertFalse(jobs.isEmpty, document)
        var rendered: [SenderRequest.RenderedJob] = []
        for job in jobs {
            let media = PayloadHelpers.renderedMedia(for: job)
            let (request, _) = try XCTUnwrap(PayloadHelpers.render(job, media: media))
            rendered.append(SenderRequest.RenderedJob(job: job, payload: request.payload, androidMedia: media))
        }
        return (SenderRequest.rewrite(try XCTUnwrap(jobs.first).document, rendered: rendered, storyKey: "pw_stories"), jobs)
    }

    /// The property: put the input's values back at the documented pointers and the request is the input, byte
    /// for byte; and each of those pointers did change.
    func testOnlyMediaAndShapeFieldsChangeInEveryShape() throws {
        for (name, document, changes) in cases {
            let input = PayloadHelpers.parse(document)
            var (request, _) = try request(for: document)
            XCTAssertEqual(request.value(at: "/request/auth") ?? .null, input.value(at: "/request/auth") ?? .null, name)
            for pointer in changes {
                XCTAssertNotEqual(request.value(at: pointer), input.value(at: pointer), "\(name): \(pointer) should change")
                request.setValue(input.value(at: pointer), at: pointer)
            }
            XCTAssertEqual(String(decoding: request.serialized(), as: UTF8.self),
                           String(decoding: input.serialized(), as: UTF8.self), "\(name): nothing else changes")
        }
    }

    func testEachShapeGetsItsOwnFields() throws {
        let values = try cases.map { try request(for: $0.document).request }
        let cdn = "https://cdn.example.com/m/"
        XCTAssertEqual(values[0].value(at: "/aps/mutable-content"), .number("1"))
        XCTAssertEqual(values[1].value(at: "/payload/attachment"), .string(cdn + "0.jpg"))
        // Pushwoosh: the attachment in place, the story in `data` where it was (a string stays a string), as the
        // SDK needs it (a numeric duration), mutable-content in ios_root_params, our category only where none was.
        let pushwoosh = values[2]
        XCTAssertEqual(pushwoosh.value(at: "/request/notifications/0/ios_attachment"), .string(cdn + "0.jpg"))
        XCTAssertEqual(pushwoosh.value(at: "/request/notifications/0/data/pw_stories/pages/0"),
                       PayloadHelpers.parse(#"{"image":"https://cdn.example.com/m/1.jpg","title":"One","duration":7}"#))
        XCTAssertEqual(pushwoosh.value(at: "/request/notifications/0/data/k"), .number("1.50"))
        XCTAssertEqual(pushwoosh.value(at: "/request/notifications/0/ios_root_params"), PayloadHelpers.parse(#"{"aps":{"mutable-content":1}}"#))
        XCTAssertEqual(pushwoosh.value(at: "/request/notifications/0/ios_category_custom"), .string("PW_STORIES"))
        XCTAssertEqual(pushwoosh.value(at: "/request/notifications/1/data"),
                       .string(#"{"pw_stories":{"pages":[{"image":"https://cdn.example.com/m/0.jpg"}]},"z":2}"#))
        XCTAssertEqual(pushwoosh.value(at: "/request/notifications/1/content"), PayloadHelpers.parse(#"{"en":"Hello","de":"Hallo"}"#),
                       "a language map stays in the request")
        XCTAssertEqual(pushwoosh.value(at: "/request/notifications/1/ios_category_custom"), .string("SHOP_STORIES"))
        XCTAssertEqual(pushwoosh.value(at: "/request/notifications/1/ios_root_params"),
                       PayloadHelpers.parse(#"{"aps":{"thread-id":"t","mutable-content":1},"x":1}"#))
        // FCM: the image where it was written, mutable-content in message.apns.payload.aps.
        XCTAssertEqual(values[3].value(at: "/message/notification/image"), .string(cdn + "0.jpg"))
        XCTAssertEqual(values[3].value(at: "/message/apns/payload"), PayloadHelpers.parse(#"{"aps":{"mutable-content":1}}"#))
        // Pushfa keeps its backend key in the request it posts; OneSignal gets mutable_content as a boolean.
        XCTAssertEqual(values[4].value(at: "/image_url"), .string(cdn + "0.jpg"))
        XCTAssertEqual(values[4].value(at: "/api_private_key"), .string("PRIVATE"))
        XCTAssertEqual(values[5].value(at: "/ios_attachments/id1"), .string(cdn + "0.jpg"))
        XCTAssertEqual(values[5].value(at: "/mutable_content"), .bool(true))
    }

    /// Media that failed is removed from the request as from the device payload, so the device never downloads it.
    func testFailedMediaLeavesTheRequestToo() throws {
        let document = #"{"content":"x","ios_attachment":"https://m.example/broken.jpg","data":{"pw_stories":{"pages":[{"image":"https://m.example/ok.jpg"},{"image":"https://m.example/bad.jpg"}]}}}"#
        let job = try XCTUnwrap(PayloadHelpers.job(document))
        var media = PayloadHelpers.renderedMedia(for: job)
        media["/attachment"] = .failed(RememberedFailure(code: "corrupt_image", message: "bad"))
        media["/u/pw_stories/pages/1/image"] = .failed(RememberedFailure(code: "corrupt_image", message: "bad"))
        let (rendered, _) = try XCTUnwrap(PayloadHelpers.render(job, media: media))
        let request = SenderRequest.rewrite(job.document, rendered: [SenderRequest.RenderedJob(job: job, payload: rendered.payload)], storyKey: "pw_stories")
        XCTAssertNil(request.value(at: "/ios_attachment"))
        XCTAssertEqual(request.value(at: "/data/pw_stories/pages"), PayloadHelpers.parse(#"[{"image":"https://cdn.example.com/m/1.jpg"}]"#))
    }

    /// Credentials stay out of everything but the request: `target` never carries them.
    func testCredentialsAreKeptOnlyInTheRequest() throws {
        for (name, document, _) in cases {
            for job in PayloadHelpers.jobs(document) {
                for key in ["auth", "api_private_key", "app_id"] {
                    XCTAssertNil(job.target[key], "\(name): \(key)")
                    XCTAssertFalse(PayloadHelpers.text(.object(job.payload)).contains("SECRET") || PayloadHelpers.text(.object(job.payload)).contains("PRIVATE"), name)
                }
            }
        }
    }
}
