import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushPayload

/// Issue 17 item 5: the FCM HTTP v1 body is a shape of its own, not a raw APNs payload.
final class FirebaseAdapterTests: XCTestCase {
    func testMessageMapsLikeFCMDoes() throws {
        let text = #"""
        {"validate_only":false,"message":{"token":"fcm-token-1","topic":"news","android":{"priority":"high"},
         "notification":{"title":"Sale","body":"Half price","image":"https://m.example/n.jpg"},
         "data":{"order":"7","aps":"ignored"},
         "apns":{"headers":{"apns-priority":"5","apns-topic":"com.example.app","apns-collapse-id":"c1","x-custom":"v"},
                 "payload":{"aps":{"sound":"default","alert":{"subtitle":"Today"}},"extra":1},
                 "fcm_options":{"image":"https://m.example/a.jpg","analytics_label":"l"},"live_activity_token":"lat"}}}
        """#
        let job = try XCTUnwrap(PayloadHelpers.job(text))
        XCTAssertEqual(job.shape, .firebase)
        XCTAssertEqual(job.deviceToken, "fcm-token-1")
        XCTAssertEqual(PayloadHelpers.text(.object(job.payload)),
                       #"{"aps":{"sound":"default","alert":{"title":"Sale","subtitle":"Today","body":"Half price"}},"extra":1,"fcm_options":{"image":"https://m.example/a.jpg","analytics_label":"l"},"order":"7"}"#)
        XCTAssertEqual(PayloadHelpers.text(.object(job.target)),
                       #"{"validate_only":false,"token":"fcm-token-1","topic":"news","android":{"priority":"high"},"apns":{"live_activity_token":"lat","headers":{"x-custom":"v"}},"data":{"aps":"ignored"}}"#)
        XCTAssertEqual(job.headers, NotificationHeaders(topic: "com.example.app", collapseID: "c1", priority: 5))
        // iOS reads apns.fcm_options.image; Android and the web read notification.image, rendered as the attachment.
        XCTAssertEqual(job.media.map(\.pointer), ["/fcm_options/image", "/message/notification/image"])
        XCTAssertEqual(job.media.map(\.platform), [.ios, .all])
        XCTAssertEqual(job.media.map(\.variantName), [VariantName.attachment, VariantName.attachment])
        XCTAssertEqual(job.media.last?.role, .androidImage)
        XCTAssertEqual(job.diagnostics, [])
    }

    func testNotificationImageIsMediaAndTextFillsTheAlert() throws {
        let job = try XCTUnwrap(PayloadHelpers.job(#"{"message":{"token":"t","notification":{"title":"T","body":"B","image":"https://m.example/n.jpg"}}}"#))
        XCTAssertEqual(job.media.map(\.url), ["https://m.example/n.jpg"])
        let (request, _) = try XCTUnwrap(PayloadHelpers.render(job, media: PayloadHelpers.renderedMedia(for: job)))
        XCTAssertEqual(PayloadHelpers.text(request.payload),
                       #"{"aps":{"alert":{"title":"T","body":"B"},"mutable-content":1},"fcm_options":{"image":"https://cdn.example.com/m/0.jpg"}}"#)
        XCTAssertEqual(request.target["token"], .string("t"))
    }

    func testDataOnlyMessageStaysDataOnly() throws {
        let job = try XCTUnwrap(PayloadHelpers.job(#"{"message":{"token":"t","apns":{"payload":{"aps":{"content-available":1}}},"data":{"sync":"1"}}}"#))
        XCTAssertTrue(job.isSilent)
        let (request, _) = try XCTUnwrap(PayloadHelpers.render(job, media: [:]))
        XCTAssertEqual(PayloadHelpers.text(request.payload), #"{"aps":{"content-available":1},"sync":"1"}"#)
    }

    func testWrongTypesAreClear() {
        XCTAssertEqual(PayloadHelpers.rejection(#"{"message":{"apns":{"payload":"x"}}}"#)?.codes, ["wrong_type"])
        XCTAssertEqual(PayloadHelpers.rejection(#"{"message":{"apns":{"headers":{"apns-push-type":"liveactivity"}}}}"#)?.codes, ["invalid_push_type"])
    }
}
