import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushPayload

final class AdapterTests: XCTestCase {
    func testPushwooshMapping() throws {
        let text = #"""
        {"content":"Body","ios_title":"Title","ios_subtitle":"Sub","ios_badges":3,"ios_sound":"ping.caf",
         "ios_category_custom":"NEWS","ios_ttl":3600,"link":"https://example.com/x","ios_attachment":"https://m.example/a.jpg",
         "data":{"campaign":"c1","pw_stories":{"pages":[{"image":"https://m.example/p.jpg"}]}},
         "ios_root_params":{"aps":{"thread-id":"t1","sound":"other.caf"},"root_extra":true},
         "send_date":"2026-12-03 10:00","platforms":[1]}
        """#
        let job = try XCTUnwrap(PayloadHelpers.job(text))
        XCTAssertEqual(job.shape, .pushwoosh)
        // What the Pushwoosh SDK reads: pw_msg, custom data in `u` (an object while the job is worked on, since it
        // holds the story; a string again in the rendered payload).
        XCTAssertEqual(PayloadHelpers.text(.object(job.payload)),
                       #"{"aps":{"alert":{"title":"Title","subtitle":"Sub","body":"Body"},"badge":3,"sound":"other.caf","category":"NEWS","thread-id":"t1"},"pw_msg":"1","u":{"campaign":"c1","pw_stories":{"pages":[{"image":"https://m.example/p.jpg"}]}},"attachment":"https://m.example/a.jpg","l":"https://example.com/x","root_extra":true}"#)
        XCTAssertEqual(job.headers.timeToLive, 3600)
        XCTAssertEqual(job.target.keys, ["send_date", "platforms"])
        XCTAssertTrue(job.isStory)
        XCTAssertEqual(job.media.map(\.pointer), ["/attachment", "/u/pw_stories/pages/0/image"])
        let (request, _) = try XCTUnwrap(PayloadHelpers.render(job, media: PayloadHelpers.renderedMedia(for: job)))
        XCTAssertEqual(request.payload.value(at: "/u"), .string(#"{"campaign":"c1","pw_stories":{"pages":[{"image":"https://cdn.example.com/m/1.jpg"}]}}"#))
        XCTAssertEqual(request.header("apns-expiration"), String(1_800_000_000 + 3600))
    }

    func testPushwooshBadgeIncrementAndLocalizedText() throws {
        let job = try XCTUnwrap(PayloadHelpers.job(#"{"content":{"de":"Hallo","en":"Hello"},"ios_badges":"+1"}"#))
        XCTAssertEqual(job.payload["aps"]?.value(at: "/alert/body"), .string("Hello"))
        XCTAssertNil(job.payload["aps"]?.value(at: "/badge"))
        // Issue 26: the SDK applies aps.pw_badge to the device's own count.
        XCTAssertEqual(job.payload["aps"]?.value(at: "/pw_badge"), .string("+1"))
        XCTAssertNil(job.target["ios_badges"])
        XCTAssertEqual(job.diagnostics.codes, ["localized_text_flattened"])
    }

    /// Issue 26: Pushwoosh's SDK reads custom data only from `u`, a string holding a JSON object.
    func testPushwooshDataIsSentAsUString() throws {
        let object = try XCTUnwrap(PayloadHelpers.job(#"{"content":"x","data":{"k":1,"deep":{"a":[1,2]}}}"#))
        XCTAssertEqual(object.payload["u"], .string(#"{"k":1,"deep":{"a":[1,2]}}"#))
        XCTAssertNil(object.payload["k"])
        XCTAssertEqual(object.payload["pw_msg"], .string("1"))
        for text in [#"{\"k\":1}"#, "not json"] {
            let job = try XCTUnwrap(PayloadHelpers.job(#"{"content":"x","data":""# + text + #""}"#))
            XCTAssertEqual(job.payload["u"], PayloadHelpers.parse(#"""# + text + #"""#), text)
        }
    }

    func testPushfaMapping() throws {
        let text = #"""
        {"title":"Sale","body":"Half price","image_url":"https://m.example/i.png","link_url":"https://shop.example/s",
         "actions":[{"title":"Buy","url":"https://shop.example/buy"},{"title":"Later","url":"https://shop.example/later"}],
         "collapse_id":"sale","ttl":60,"sendTime":"2026-12-03T10:00:00Z","additional_data":{"order":7},
         "ackUrl":"https://t.example/ack","clickAckUrl":"https://t.example/click","platform":"ios","id":"p-1","alias":"user-7"}
        """#
        let job = try XCTUnwrap(PayloadHelpers.job(text))
        XCTAssertEqual(job.id, "p-1")
        // The Pushfa SDK's device table: image, url, additional_data as one object.
        XCTAssertEqual(PayloadHelpers.text(.object(job.payload)),
                       #"{"aps":{"alert":{"title":"Sale","body":"Half price"}},"image":"https://m.example/i.png","url":"https://shop.example/s","actions":[{"title":"Buy","url":"https://shop.example/buy"},{"title":"Later","url":"https://shop.example/later"}],"ackUrl":"https://t.example/ack","clickAckUrl":"https://t.example/click","additional_data":{"order":7}}"#)
        XCTAssertEqual(job.target.keys, ["sendTime", "alias"])
        XCTAssertEqual(job.headers.collapseID, "sale")
        XCTAssertEqual(job.headers.timeToLive, 60)
        XCTAssertEqual(job.diagnostics, [])
    }

    func testPushfaLimitsAreWarningsOrStrictErrors() throws {
        let longTitle = String(repeating: "👍🏽", count: 36)   // 36 graphemes, many more scalars
        let text = #"{"title":""# + longTitle + #"","body":""# + String(repeating: "b", count: 151) + #""}"#
        let job = try XCTUnwrap(PayloadHelpers.job(text))
        XCTAssertEqual(job.diagnostics.filter { $0.code == "text_too_long" }.map(\.pointer), ["/title", "/body"])
        XCTAssertTrue(job.diagnostics.allSatisfy { $0.severity == .warning })
        let atLimit = #"{"title":""# + String(repeating: "👍🏽", count: 35) + #""}"#
        XCTAssertEqual(PayloadHelpers.job(atLimit)?.diagnostics, [])
        var strict = PayloadOptions()
        strict.strict = true
        XCTAssertEqual(PayloadHelpers.rejection(text, options: strict)?.codes, ["text_too_long", "text_too_long"])
    }

    func testPushfaActions() throws {
        let text = #"{"title":"t","actions":[{"title":"a","url":"https://a.example"},{"title":"no url"},{"title":"b","url":"javascript:alert(1)"},{"title":"c","url":"https://c.example"},{"title":"d","url":"https://d.example"}]}"#
        let job = try XCTUnwrap(PayloadHelpers.job(text))
        XCTAssertEqual(job.payload["actions"]?.arrayValue?.count, 2)
        XCTAssertEqual(job.payload["actions"]?.value(at: "/1/url"), .string("https://c.example"))
        XCTAssertEqual(job.diagnostics.codes, ["action_invalid", "action_invalid", "too_many_actions"])
    }
}

final class WrongTypeTests: XCTestCase {
    /// Optional fields of the wrong type are ignored with a warning that points at them; the job still goes out.
    func testWrongTypesAreIgnoredWithPointedWarnings() {
        let cases: [(String, String)] = [
            (#"{"content":"x","ios_sound":5}"#, "wrong_type@/ios_sound"),
            (#"{"content":"x","ios_badges":{"n":1}}"#, "wrong_type@/ios_badges"),
            (#"{"content":"x","ios_root_params":[1]}"#, "wrong_type@/ios_root_params"),
            (#"{"content":"x","ios_ttl":"soon"}"#, "invalid_expiration@/ios_ttl"),
            (#"{"title":7,"body":"b"}"#, "wrong_type@/title"),
            (#"{"title":"t","additional_data":"x"}"#, "wrong_type@/additional_data"),
            (#"{"title":"t","actions":{"a":1}}"#, "wrong_type@/actions"),
            (#"{"id":"1","token":"t","priority":7,"payload":{"aps":{}}}"#, "invalid_priority@/priority"),
            (#"{"id":"1","token":9,"payload":{"aps":{}}}"#, "wrong_type@/token"),
            (#"{"aps":{"alert":"x"},"image":42}"#, "media_url_invalid@/image"),
            (#"{"aps":{"alert":"x"},"media-url":"ftp://x.example/a.jpg"}"#, "media_url_invalid@/media-url"),
            // Control characters: a NUL would cut the URL libcurl sees short of the one the cache key names.
            (#"{"aps":{"alert":"x"},"image_url":"https://x.example/a.jpg\u0000.png"}"#, "media_url_invalid@/image_url"),
            (#"{"aps":{"alert":"x"},"image_url":"https://x.example/a\u0007.jpg"}"#, "media_url_invalid@/image_url"),
            (#"{"aps":{"alert":"x"},"image_url":"https://x.example/a\t.jpg"}"#, "media_url_invalid@/image_url"),
            (#"{"aps":{"alert":"x"},"image_url":"https://x.example/a\u007f.jpg"}"#, "media_url_invalid@/image_url"),
        ]
        for (text, expected) in cases {
            let job = PayloadHelpers.job(text)
            XCTAssertEqual(job?.diagnostics.map { "\($0.code)@\($0.pointer)" }, [expected], text)
            XCTAssertEqual(job?.diagnostics.first?.severity, .warning, text)
        }
    }
}

/// Issue 26: what the provider shapes' own scheduling and language fields mean for the device payload.
final class ProviderFieldTests: XCTestCase {
    /// Issue 26: expiration counts from a scheduled push's send time, not from when it was processed
    /// (`PayloadHelpers.fixedNow` is 2027-01-15 08:00 UTC, UNIX 1,800,000,000).
    func testExpirationCountsFromTheSendTime() throws {
        let march = 1_803_895_200   // 2027-03-01 10:00 UTC
        let cases: [(String, Int)] = [
            (#"{"content":"x","ios_ttl":3600,"send_date":"2027-03-01 10:00"}"#, march + 3600),
            (#"{"content":"x","ios_ttl":3600,"send_date":"2027-03-01 11:00","timezone":"Europe/Berlin"}"#, march + 3600),
            (#"{"content":"x","ios_ttl":3600,"send_date":"now"}"#, 1_800_000_000 + 3600),
            (#"{"content":"x","ios_ttl":60,"send_date":"2020-01-01 00:00"}"#, 1_800_000_000 + 60),
            (#"{"title":"x","ttl":60,"sendTime":"2027-03-01T10:00:00Z"}"#, march + 60),
            (#"{"title":"x","ttl":60,"sendTime":"2027-03-01T11:00:00+01:00"}"#, march + 60),
            (#"{"token":"t","ttl":60,"send_at":1803895200,"payload":{"aps":{"alert":"x"}}}"#, march + 60),
            (#"{"request":{"notifications":[{"content":"x","ios_ttl":5,"send_date":"2027-03-01 10:00"}]}}"#, march + 5),
            (#"{"app_id":"a","contents":{"en":"x"},"ttl":60,"send_after":"2027-03-01 11:00:00 GMT+0100"}"#, march + 60),
            (#"{"app_id":"a","contents":{"en":"x"},"ttl":60,"send_after":"2027-03-01T10:00:00Z"}"#, march + 60),
        ]
        for (text, expiration) in cases {
            let job = try XCTUnwrap(PayloadHelpers.job(text), text)
            XCTAssertEqual(job.diagnostics.codes, [], text)
            let (request, _) = try XCTUnwrap(PayloadHelpers.render(job, media: [:]), text)
            XCTAssertEqual(request.header("apns-expiration"), String(expiration), text)
        }
        let unreadable = try XCTUnwrap(PayloadHelpers.job(#"{"request":{"notifications":[{"content":"x","ios_ttl":5,"send_date":"next tuesday"}]}}"#))
        XCTAssertEqual(unreadable.diagnostics.map { "\($0.code)@\($0.pointer)" }, ["invalid_send_time@/request/notifications/0/send_date"])
        let (request, _) = try XCTUnwrap(PayloadHelpers.render(unreadable, media: [:]))
        XCTAssertEqual(request.header("apns-expiration"), String(1_800_000_000 + 5))
    }

    /// Issue 26: the device payload shows the `--language` text of a language map; the request keeps the map.
    func testLanguageMapShowsTheChosenLanguage() throws {
        let text = #"{"content":{"de":"Hallo","en":"Hello","fr":"Bonjour"},"ios_title":{"fr":"Titre"}}"#
        XCTAssertEqual(try XCTUnwrap(PayloadHelpers.job(text)).payload["aps"]?.value(at: "/alert"),
                       PayloadHelpers.parse(#"{"title":"Titre","body":"Hello"}"#))
        var options = PayloadOptions()
        options.language = "de"
        let german = try XCTUnwrap(PayloadHelpers.job(text, options: options))
        XCTAssertEqual(german.payload["aps"]?.value(at: "/alert"), PayloadHelpers.parse(#"{"title":"Titre","body":"Hallo"}"#))
        let oneSignal = try XCTUnwrap(PayloadHelpers.job(#"{"app_id":"a","contents":{"en":"Hi","de":"Hallo"}}"#, options: options))
        XCTAssertEqual(oneSignal.payload["aps"]?.value(at: "/alert/body"), .string("Hallo"))
    }
}
