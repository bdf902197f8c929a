import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushPayload

final class RendererTests: XCTestCase {
    private func rendered(_ url: String, bytes: Int = 100_000) -> MediaOutcome {
        PayloadHelpers.rendered(url, bytes: bytes)
    }

    private var sourceKeys: PayloadOptions {
        var options = PayloadOptions()
        options.includesSourceKeys = true
        return options
    }

    // MARK: SDK shapes (issue 8 item 1)

    func testPushwooshAttachmentRewrittenInPlace() throws {
        let job = try XCTUnwrap(PayloadHelpers.job(#"{"aps":{"alert":{"title":"T","body":"B"}},"attachment":"https://m.example/a.jpg","p":"x"}"#))
        XCTAssertEqual(job.media, [MediaReference(pointer: "/attachment", url: "https://m.example/a.jpg", role: .attachment, variantName: "attachment")])
        let (request, _) = try XCTUnwrap(PayloadHelpers.render(job, media: ["/attachment": rendered("https://cdn.example/a.jpg")]))
        XCTAssertEqual(PayloadHelpers.text(request.payload),
                       #"{"aps":{"alert":{"title":"T","body":"B"},"mutable-content":1},"attachment":"https://cdn.example/a.jpg","p":"x"}"#)
    }

    func testOneSignalAttDictionaryEveryEntryRewritten() throws {
        let text = #"{"aps":{"alert":{"title":"T","body":"B"},"mutable-content":1},"custom":{"i":"abc"},"att":{"id1":"https://m.example/1.jpg","id2":"https://user:pw@m.example/2.png?X-Amz-Signature=s","id3":"https://m.example/3.gif"}}"#
        let job = try XCTUnwrap(PayloadHelpers.job(text))
        XCTAssertEqual(job.media.map(\.pointer), ["/att/id1", "/att/id2", "/att/id3"])
        let media: [ExactString: MediaOutcome] = [
            "/att/id1": rendered("https://cdn.example/1.jpg"), "/att/id2": rendered("https://cdn.example/2.png"),
            "/att/id3": rendered("https://cdn.example/3.gif"),
        ]
        let (request, _) = try XCTUnwrap(PayloadHelpers.render(job, media: media))
        XCTAssertEqual(PayloadHelpers.text(request.payload),
                       #"{"aps":{"alert":{"title":"T","body":"B"},"mutable-content":1},"custom":{"i":"abc"},"att":{"id1":"https://cdn.example/1.jpg","id2":"https://cdn.example/2.png","id3":"https://cdn.example/3.gif"}}"#)
        // --source-keys puts the originals back beside the container, redacted: no signature, no password.
        let (withSources, _) = try XCTUnwrap(PayloadHelpers.render(job, media: media, options: sourceKeys))
        XCTAssertEqual(withSources.payload.value(at: "/att_source"),
                       PayloadHelpers.parse(#"{"id1":"https://m.example/1.jpg","id2":"https://m.example/2.png","id3":"https://m.example/3.gif"}"#))
    }

    func testFCMImageRewrittenInPlace() throws {
        let text = #"{"aps":{"alert":{"title":"T","body":"B"},"mutable-content":1},"fcm_options":{"image":"https://m.example/f.jpg"},"gcm.message_id":"123"}"#
        let job = try XCTUnwrap(PayloadHelpers.job(text))
        let (request, _) = try XCTUnwrap(PayloadHelpers.render(job, media: ["/fcm_options/image": rendered("https://cdn.example/f.jpg")]))
        XCTAssertEqual(PayloadHelpers.text(request.payload),
                       #"{"aps":{"alert":{"title":"T","body":"B"},"mutable-content":1},"fcm_options":{"image":"https://cdn.example/f.jpg"},"gcm.message_id":"123"}"#)
        let (withSources, _) = try XCTUnwrap(PayloadHelpers.render(job, media: ["/fcm_options/image": rendered("https://cdn.example/f.jpg")], options: sourceKeys))
        XCTAssertEqual(withSources.payload.value(at: "/fcm_options"),
                       PayloadHelpers.parse(#"{"image":"https://cdn.example/f.jpg","image_source":"https://m.example/f.jpg"}"#))
    }

    func testAttAsStringAndAsURLObject() throws {
        let string = try XCTUnwrap(PayloadHelpers.job(#"{"aps":{"alert":"x"},"att":"https://m.example/1.jpg"}"#))
        XCTAssertEqual(string.media.map(\.pointer), ["/att"])
        let object = try XCTUnwrap(PayloadHelpers.job(#"{"aps":{"alert":"x"},"att":{"url":"https://m.example/1.jpg","type":"jpg"}}"#))
        XCTAssertEqual(object.media.map(\.pointer), ["/att/url"])
        let (request, _) = try XCTUnwrap(PayloadHelpers.render(object, media: ["/att/url": rendered("https://cdn.example/1.jpg")], options: sourceKeys))
        XCTAssertEqual(request.payload.value(at: "/att"), PayloadHelpers.parse(#"{"url":"https://cdn.example/1.jpg","type":"jpg"}"#))
        XCTAssertEqual(request.payload.value(at: "/att_source"), PayloadHelpers.parse(#"{"url":"https://m.example/1.jpg"}"#))
    }

    func testMediaKeysAreConfigurableAndNonURLsAreKept() throws {
        var options = PayloadOptions()
        options.mediaKeys = ["data.pics[].src"]
        let job = try XCTUnwrap(PayloadHelpers.job(#"{"aps":{"alert":"x"},"image":"https://m.example/i.jpg","data":{"pics":[{"src":"https://m.example/1.jpg"},{"src":"nope"},{"src":"ftp://m.example/2.jpg"}]}}"#, options: options))
        XCTAssertEqual(job.media.map(\.pointer), ["/data/pics/0/src", "/data/pics/2/src"])
        XCTAssertEqual(job.media.map { $0.invalidReason != nil }, [false, true])
        XCTAssertEqual(job.diagnostics.map { "\($0.code)@\($0.pointer)" },
                       ["media_value_not_url@/data/pics/1/src", "media_url_invalid@/data/pics/2/src"])
        // Issue 26: an asset name under a media key is the app's own; it reaches the device as written.
        let (request, _) = try XCTUnwrap(PayloadHelpers.render(job, media: PayloadHelpers.renderedMedia(for: job), options: options))
        XCTAssertEqual(request.payload.value(at: "/data/pics/1/src"), .string("nope"))
    }

    // MARK: Fail open

    func testFailedAttachmentIsRemovedAndOriginalKept() throws {
        let job = try XCTUnwrap(PayloadHelpers.job(#"{"aps":{"alert":{"title":"T","body":"B"}},"att":{"a":"https://m.example/1.jpg","b":"https://m.example/2.jpg"},"image_url":"https://m.example/3.jpg"}"#))
        let media: [ExactString: MediaOutcome] = ["/att/a": rendered("https://cdn.example/1.jpg"),
                                             "/att/b": .failed(RememberedFailure(code: "http_status", message: "404")),
                                             "/image_url": .skipped(reason: "deadline")]
        let (request, diagnostics) = try XCTUnwrap(PayloadHelpers.render(job, media: media))
        XCTAssertEqual(PayloadHelpers.text(request.payload),
                       #"{"aps":{"alert":{"title":"T","body":"B"},"mutable-content":1},"att":{"a":"https://cdn.example/1.jpg"}}"#)
        XCTAssertEqual(diagnostics.codes, ["media_failed", "media_skipped"])
        let (withSources, _) = try XCTUnwrap(PayloadHelpers.render(job, media: media, options: sourceKeys))
        XCTAssertEqual(PayloadHelpers.text(withSources.payload),
                       #"{"aps":{"alert":{"title":"T","body":"B"},"mutable-content":1},"att":{"a":"https://cdn.example/1.jpg"},"att_source":{"a":"https://m.example/1.jpg","b":"https://m.example/2.jpg"},"image_url_source":"https://m.example/3.jpg"}"#)
    }

    func testNothingRenderedKeepsSenderMutableContentAndAddsNone() throws {
        let job = try XCTUnwrap(PayloadHelpers.job(#"{"aps":{"alert":{"title":"T","body":"B"}},"image":"https://m.example/1.jpg"}"#))
        let (request, diagnostics) = try XCTUnwrap(PayloadHelpers.render(job, media: [:]))
        XCTAssertEqual(PayloadHelpers.text(request.payload), #"{"aps":{"alert":{"title":"T","body":"B"}}}"#)
        XCTAssertEqual(diagnostics.codes, ["media_missing"])
    }

    func testDeliveryTrackingKeepsMutableContent() throws {
        for key in ["messageId", "ackUrl"] {
            let job = try XCTUnwrap(PayloadHelpers.job(#"{"aps":{"alert":{"title":"T","body":"B"}},""# + key + #"":"m1"}"#))
            let (request, _) = try XCTUnwrap(PayloadHelpers.render(job, media: [:]))
            XCTAssertEqual(request.payload.value(at: "/aps/mutable-content"), .number("1"), key)
        }
    }

    // MARK: Stories

    /// A story of `pages` pages, each with a title and subtitle; by default its alert has no text, so fallback text
    /// comes from the first page.
    private func storyJob(pages: Int, aps: String = #"{"alert":{}}"#) -> NotificationJob? {
        let list = (0..<pages).map { #"{"image":"https://m.example/\#($0).jpg","title":"Page \#($0)","subtitle":"Sub \#($0)"}"# }
        return PayloadHelpers.job(#"{"aps":\#(aps),"pw_stories":{"pages":[\#(list.joined(separator: ","))]}}"#)
    }

    func testStoryGetsCategoryAndRewrittenPages() throws {
        let job = try XCTUnwrap(storyJob(pages: 2, aps: #"{"alert":{"title":""}}"#))
        let (request, diagnostics) = try XCTUnwrap(PayloadHelpers.render(job, media: PayloadHelpers.renderedMedia(for: job)))
        XCTAssertEqual(request.payload.value(at: "/aps/category"), .string("PW_STORIES"))
        XCTAssertEqual(request.payload.value(at: "/aps/mutable-content"), .number("1"))
        XCTAssertEqual(request.payload.value(at: "/pw_stories/pages/1"),
                       PayloadHelpers.parse(#"{"image":"https://cdn.example.com/m/1.jpg","title":"Page 1","subtitle":"Sub 1"}"#))
        XCTAssertEqual(request.payload.value(at: "/aps/alert/title"), .string("Page 0"))
        XCTAssertEqual(diagnostics.codes, ["empty_alert_text_removed", "fallback_text_used"])
    }

    /// Issue 26: a sender's story category is the app's own content extension (`SHOP_STORIES`): it is kept, and
    /// `storyCategory` (`--story-category`) is only what a story without one gets.
    func testSendersStoryCategoryIsKept() throws {
        let job = try XCTUnwrap(storyJob(pages: 2, aps: #"{"alert":"x","category":"SHOP_STORIES"}"#))
        let (request, diagnostics) = try XCTUnwrap(PayloadHelpers.render(job, media: PayloadHelpers.renderedMedia(for: job)))
        XCTAssertEqual(request.payload.value(at: "/aps/category"), .string("SHOP_STORIES"))
        XCTAssertEqual(diagnostics, [])
        var options = PayloadOptions()
        options.storyCategory = "APP_STORIES"
        let plain = try XCTUnwrap(storyJob(pages: 1, aps: #"{"alert":"x"}"#))
        let (configured, _) = try XCTUnwrap(PayloadHelpers.render(plain, media: PayloadHelpers.renderedMedia(for: plain), options: options))
        XCTAssertEqual(configured.payload.value(at: "/aps/category"), .string("APP_STORIES"))
    }

    /// Issue 26: a push without an alert never gets one, whatever media or story it carries; its media is still
    /// rewritten to the cache, and a warning says the extension will not run.
    func testNoAlertIsAddedToAPushThatHadNone() throws {
        let cases: [(String, String)] = [
            (#"{"aps":{},"image":"https://m.example/1.jpg"}"#, #"{"aps":{},"image":"https://cdn.example.com/m/0.jpg"}"#),
            (#"{"aps":{"badge":2,"sound":"default"},"image":"https://m.example/1.jpg"}"#,
             #"{"aps":{"badge":2,"sound":"default"},"image":"https://cdn.example.com/m/0.jpg"}"#),
            (#"{"aps":{"content-available":1,"badge":2},"image":"https://m.example/1.jpg"}"#,
             #"{"aps":{"content-available":1,"badge":2},"image":"https://cdn.example.com/m/0.jpg"}"#),
            (#"{"aps":{},"pw_stories":{"pages":[{"image":"https://m.example/1.jpg","title":"T"}]}}"#,
             #"{"aps":{"category":"PW_STORIES"},"pw_stories":{"pages":[{"image":"https://cdn.example.com/m/0.jpg","title":"T"}]}}"#),
        ]
        for (text, expected) in cases {
            let job = try XCTUnwrap(PayloadHelpers.job(text), text)
            XCTAssertEqual(job.pushType, .alert, text)
            let (request, diagnostics) = try XCTUnwrap(PayloadHelpers.render(job, media: PayloadHelpers.renderedMedia(for: job)), text)
            XCTAssertEqual(PayloadHelpers.text(request.payload), expected, text)
            XCTAssertEqual(diagnostics.codes, ["media_without_alert"], text)
        }
    }

    func testNonStoryCategoryIsKept() throws {
        let job = try XCTUnwrap(PayloadHelpers.job(#"{"aps":{"alert":"x","category":"NEWS"}}"#))
        let (request, _) = try XCTUnwrap(PayloadHelpers.render(job, media: [:]))
        XCTAssertEqual(request.payload.value(at: "/aps/category"), .string("NEWS"))
    }

    func testFailedStoryPagesAreDropped() throws {
        let job = try XCTUnwrap(storyJob(pages: 3))
        var media = PayloadHelpers.renderedMedia(for: job)
        media["/pw_stories/pages/0/image"] = .failed(RememberedFailure(code: "corrupt", message: "bad JPEG"))
        let (request, diagnostics) = try XCTUnwrap(PayloadHelpers.render(job, media: media))
        XCTAssertEqual(request.payload.value(at: "/pw_stories/pages")?.arrayValue?.count, 2)
        XCTAssertEqual(request.payload.value(at: "/pw_stories/pages/0/title"), .string("Page 1"))
        XCTAssertEqual(request.payload.value(at: "/aps/alert/title"), .string("Page 1"))
        XCTAssertTrue(diagnostics.contains { $0.code == "story_page_dropped" && $0.pointer == "/pw_stories/pages/0" })
    }

    func testAllStoryPagesFailedGivesPlainAlertWithFallbackText() throws {
        let job = try XCTUnwrap(PayloadHelpers.job(#"{"aps":{"alert":"","category":"PW_STORIES"},"pw_stories":{"pages":[{"image":"https://m.example/1.jpg"}]}}"#))
        var options = PayloadOptions()
        options.defaultTitle = "News"
        let (request, diagnostics) = try XCTUnwrap(PayloadHelpers.render(job, media: ["/pw_stories/pages/0/image": .failed(RememberedFailure(code: "x", message: "y"))], options: options))
        XCTAssertEqual(PayloadHelpers.text(request.payload), #"{"aps":{"alert":{"title":"News","body":"Open to see more"}}}"#)
        XCTAssertEqual(diagnostics.codes, ["story_page_dropped", "story_removed", "empty_alert_text_removed", "fallback_text_used"])
    }

    /// Issue 26: the content extension downloads page images one by one, so no page is dropped for the story's
    /// total size (the old 3 MB budget dropped 2 of these 10).
    func testLargeStoriesKeepEveryPage() throws {
        let job = try XCTUnwrap(storyJob(pages: 10))
        let media = PayloadHelpers.renderedMedia(for: job, bytes: 350_000)
        let (request, diagnostics) = try XCTUnwrap(PayloadHelpers.render(job, media: media))
        XCTAssertEqual(request.payload.value(at: "/pw_stories/pages")?.arrayValue?.count, 10)
        XCTAssertFalse(diagnostics.contains { $0.code == "story_page_dropped" }, "\(diagnostics)")
    }

    // MARK: Fallback text, silent, headers

    /// Input payload, expected `aps.alert` (nil: none) when no media renders. Fallback text only for a push that
    /// had media or a story; empty texts count as absent.
    func testFallbackTextTable() throws {
        let cases: [(String, String?)] = [
            (#"{"aps":{"alert":{"title":"T","body":"B"}}}"#, #"{"title":"T","body":"B"}"#),
            (#"{"aps":{"alert":"just body"}}"#, #""just body""#),
            (#"{"aps":{"alert":{"title":"T"}}}"#, #"{"title":"T"}"#),
            (#"{"aps":{"alert":{"title":"T"}},"image":"https://m.example/1.jpg"}"#, #"{"title":"T"}"#),
            (#"{"aps":{}}"#, nil),
            (#"{"aps":{},"image":"https://m.example/1.jpg"}"#, nil),
            (#"{"aps":{"alert":""},"image":"https://m.example/1.jpg"}"#, #"{"body":"Open to see more"}"#),
            (#"{"aps":{"alert":{"title":"","body":""}},"image":"https://m.example/1.jpg"}"#, #"{"body":"Open to see more"}"#),
            (#"{"aps":{"alert":{"title":"","body":""}}}"#, nil),
            (#"{"aps":{"alert":""}}"#, nil),
            (#"{"aps":{"alert":{"title":"T","subtitle":"","body":"B"}}}"#, #"{"title":"T","body":"B"}"#),
            (#"{"aps":{"alert":{"loc-key":"K","title-loc-key":"TK"}}}"#, #"{"loc-key":"K","title-loc-key":"TK"}"#),
        ]
        for (text, alert) in cases {
            let job = try XCTUnwrap(PayloadHelpers.job(text))
            let (request, _) = try XCTUnwrap(PayloadHelpers.render(job, media: [:]))
            XCTAssertEqual(request.payload.value(at: "/aps/alert"), alert.map(PayloadHelpers.parse), text)
        }
        var options = PayloadOptions()
        options.defaultTitle = "App"
        let job = try XCTUnwrap(PayloadHelpers.job(#"{"aps":{"alert":"just body"}}"#))
        let (request, _) = try XCTUnwrap(PayloadHelpers.render(job, media: [:], options: options))
        XCTAssertEqual(request.payload.value(at: "/aps/alert"), .string("just body"), "a written alert is left as written")
    }

    /// Issue 17 item 2: badge-, sound-, data-only and background pushes keep their meaning.
    func testNonAlertPushesStayNonAlert() throws {
        let cases: [(String, String)] = [
            (#"{"aps":{"badge":3}}"#, #"{"aps":{"badge":3}}"#),
            (#"{"aps":{"sound":"default"},"orderId":7}"#, #"{"aps":{"sound":"default"},"orderId":7}"#),
            (#"{"aps":{"badge":1},"messageId":"m-1"}"#, #"{"aps":{"badge":1},"messageId":"m-1"}"#),
            (#"{"token":"ab","payload":{"orderId":7}}"#, #"{"aps":{},"orderId":7}"#),
            (#"{"token":"ab","payload":{"aps":{"content-available":1},"orderId":7}}"#, #"{"aps":{"content-available":1},"orderId":7}"#),
        ]
        for (text, expected) in cases {
            let job = try XCTUnwrap(PayloadHelpers.job(text))
            let (request, diagnostics) = try XCTUnwrap(PayloadHelpers.render(job, media: [:]))
            XCTAssertEqual(PayloadHelpers.text(request.payload), expected, text)
            XCTAssertEqual(diagnostics, [], text)
        }
    }

    func testStoryPageWithEmptyTextsGivesNoEmptyAlert() throws {
        let job = try XCTUnwrap(PayloadHelpers.job(#"{"aps":{"alert":{}},"pw_stories":{"pages":[{"image":"https://m.example/1.jpg","title":"","subtitle":""}]}}"#))
        let (request, _) = try XCTUnwrap(PayloadHelpers.render(job, media: PayloadHelpers.renderedMedia(for: job)))
        XCTAssertEqual(request.payload.value(at: "/aps/alert"), PayloadHelpers.parse(#"{"body":"Open to see more"}"#))
    }

    func testPushfaDeliveryStatusSetsMutableContent() throws {
        let job = try XCTUnwrap(PayloadHelpers.job(#"{"title":"t","body":"b","get_delivery_status":true}"#))
        let (request, _) = try XCTUnwrap(PayloadHelpers.render(job, media: [:]))
        XCTAssertEqual(PayloadHelpers.text(request.payload), #"{"aps":{"alert":{"title":"t","body":"b"},"mutable-content":1}}"#)
        let without = try XCTUnwrap(PayloadHelpers.job(#"{"title":"t","body":"b","get_delivery_status":false}"#))
        let (plain, _) = try XCTUnwrap(PayloadHelpers.render(without, media: [:]))
        XCTAssertNil(plain.payload.value(at: "/aps/mutable-content"))
    }

    func testSilentPushRendering() throws {
        let job = try XCTUnwrap(PayloadHelpers.job(#"{"title":"t","body":"b","image_url":"https://m.example/1.jpg","silent":true,"ttl":0}"#))
        XCTAssertEqual(job.media, [])
        let (request, diagnostics) = try XCTUnwrap(PayloadHelpers.render(job, media: [:]))
        XCTAssertEqual(PayloadHelpers.text(request.payload), #"{"aps":{"content-available":1},"image":"https://m.example/1.jpg"}"#)
        XCTAssertEqual(request.headers, [APNsHeader(name: "apns-push-type", value: "background"),
                                         APNsHeader(name: "apns-priority", value: "5"),
                                         APNsHeader(name: "apns-expiration", value: "0")])
        XCTAssertEqual(diagnostics.codes, ["silent_content_removed"])
        let sounding = try XCTUnwrap(PayloadHelpers.job(#"{"token":"t","silent":true,"payload":{"aps":{"content-available":1,"sound":"a","badge":2,"mutable-content":1}}}"#))
        let (cleaned, _) = try XCTUnwrap(PayloadHelpers.render(sounding, media: [:]))
        XCTAssertEqual(PayloadHelpers.text(cleaned.payload), #"{"aps":{"content-available":1}}"#)
        // Issue 26: without an explicit silent flag, content-available with a badge keeps the badge.
        let badged = try XCTUnwrap(PayloadHelpers.job(#"{"aps":{"content-available":1,"badge":2}}"#))
        let (kept, keptDiagnostics) = try XCTUnwrap(PayloadHelpers.render(badged, media: [:]))
        XCTAssertEqual(PayloadHelpers.text(kept.payload), #"{"aps":{"content-available":1,"badge":2}}"#)
        XCTAssertEqual(kept.headers.first, APNsHeader(name: "apns-push-type", value: "alert"))
        XCTAssertEqual(keptDiagnostics, [])
    }

    func testAlertHeaders() throws {
        let job = try XCTUnwrap(PayloadHelpers.job(#"{"aps":{"alert":"x"}}"#))
        let (request, _) = try XCTUnwrap(PayloadHelpers.render(job, media: [:]))
        XCTAssertEqual(request.headers, [APNsHeader(name: "apns-push-type", value: "alert"), APNsHeader(name: "apns-priority", value: "10")])
        XCTAssertEqual(request.byteCount, request.payload.serialized().count)
    }

    // MARK: Size

    /// Story texts are never cut: a story too large as sent is rejected, naming its largest keys.
    func testOversizedStoryIsRejectedNotCut() throws {
        let long = String(repeating: "Lorem ipsum dolor sit amet ", count: 15)
        let pages = (0..<10).map { #"{"image":"https://m.example/\#($0).jpg","title":"Title \#($0)","subtitle":"\#(long)"}"# }
        let text = #"{"aps":{"alert":{"title":"T","body":"B"}},"pw_stories":{"pages":[\#(pages.joined(separator: ","))]}}"#
        let job = try XCTUnwrap(PayloadHelpers.job(text))
        guard case .rejected(let diagnostics) = APNsRenderer().render(job, media: PayloadHelpers.renderedMedia(for: job, bytes: 1000)) else {
            return XCTFail("a story that cannot fit must be rejected, not cut")
        }
        let last = try XCTUnwrap(diagnostics.last)
        XCTAssertEqual(last.code, "payload_too_large")
        XCTAssertTrue(last.message.contains("over the APNs limit of 4096"), last.message)
        XCTAssertTrue(last.message.contains("largest keys are /pw_stories ("), last.message)
    }

    /// Issue 17 item 3: a 10-page story that fits as sent still fits after the rewrite, with every text intact.
    func testStoryThatFitsAsSentKeepsEveryText() throws {
        let pages = (0..<10).map {
            #"{"image":"https://media.example.com/stories/autumn-\#($0).jpg","title":"Page title number \#($0)","subtitle":"A subtitle that says a little more about page \#($0) of the story","duration":5,"link":"https://shop.example.com/autumn/p\#($0)","button_title":"Shop now"}"#
        }
        let text = #"{"aps":{"alert":{"title":"Autumn","body":"Swipe through this week's picks"},"sound":"default"},"pw_stories":{"pages":[\#(pages.joined(separator: ","))]}}"#
        XCTAssertLessThan(text.utf8.count, 4096)
        let job = try XCTUnwrap(PayloadHelpers.job(text))
        var media: [ExactString: MediaOutcome] = [:]
        for reference in job.media {
            media[reference.pointerKey] = rendered("https://cdn.example.com/richpush/objects/1e/77/" + String(repeating: "a", count: 64) + ".jpg")
        }
        let (request, diagnostics) = try XCTUnwrap(PayloadHelpers.render(job, media: media))
        XCTAssertLessThanOrEqual(request.byteCount, 4096)
        let input = PayloadHelpers.parse(text)
        for index in 0..<10 {
            for key in ["title", "subtitle", "link", "button_title"] {
                XCTAssertEqual(request.payload.value(at: "/pw_stories/pages/\(index)/\(key)"),
                               input.value(at: "/pw_stories/pages/\(index)/\(key)"), "page \(index) \(key)")
            }
        }
        XCTAssertEqual(request.payload.value(at: "/aps/alert"), input.value(at: "/aps/alert"))
        XCTAssertFalse(PayloadHelpers.text(request.payload).contains("_source"))
        // Cached URLs are longer than these originals: the last pages keep theirs rather than reject the push.
        XCTAssertTrue(diagnostics.allSatisfy { $0.code == "media_restored_to_fit" }, "\(diagnostics)")
    }

    /// Issue 26: a push that fits as sent is never cut to make room for a longer cached URL: the original URL comes
    /// back first, and the body stays whole.
    func testPushThatFitsAsSentIsNeverCut() throws {
        let body = String(repeating: "b", count: 3980)
        let text = #"{"aps":{"alert":{"body":"\#(body)"}},"image_url":"https://m.example/i.jpg"}"#
        XCTAssertLessThanOrEqual(text.utf8.count, 4096)
        let job = try XCTUnwrap(PayloadHelpers.job(text))
        let cached = "https://cdn.example.com/richpush/objects/1e/77/" + String(repeating: "a", count: 64) + ".jpg"
        let (request, diagnostics) = try XCTUnwrap(PayloadHelpers.render(job, media: ["/image_url": rendered(cached)]))
        XCTAssertEqual(request.payload.value(at: "/aps/alert/body"), .string(body))
        XCTAssertEqual(request.payload.value(at: "/image_url"), .string("https://m.example/i.jpg"))
        XCTAssertEqual(diagnostics.codes, ["media_restored_to_fit"])
    }

    /// Issue 36 item 7: a 4,080-byte push with an image fits as sent; restoring its original URL is not enough once
    /// mutable-content is added, and it then goes out exactly as sent instead of losing characters of its body.
    func testPushThatFitsAsSentGoesOutAsSentWhenOurKeysDoNotFit() throws {
        let prefix = #"{"aps":{"alert":{"title":"Sale","body":""#
        let suffix = #""}},"image_url":"https://m.example/i.jpg"}"#
        let body = String(repeating: "b", count: 4080 - prefix.utf8.count - suffix.utf8.count)
        let text = prefix + body + suffix
        XCTAssertEqual(text.utf8.count, 4080)
        let job = try XCTUnwrap(PayloadHelpers.job(text))
        let cached = "https://cdn.example.com/richpush/objects/1e/77/" + String(repeating: "a", count: 64) + ".jpg"
        let (request, diagnostics) = try XCTUnwrap(PayloadHelpers.render(job, media: ["/image_url": rendered(cached)]))
        XCTAssertEqual(request.payload, PayloadHelpers.parse(text), "sent exactly as it came")
        XCTAssertEqual(request.payload.value(at: "/aps/alert/body"), .string(body))
        XCTAssertNil(request.payload.value(at: "/aps/mutable-content"))
        XCTAssertEqual(diagnostics.codes, ["media_restored_to_fit", "payload_sent_as_is"])
        XCTAssertTrue(DiagnosticCode.changesWhatIsShown.contains(.payloadSentAsIs))
    }

    /// Only the alert body, then the subtitle, are cut, and never below 40 characters.
    func testOnlyBodyThenSubtitleAreCutToAtLeastFortyCharacters() throws {
        let body = String(repeating: "b", count: 3000)
        let subtitle = String(repeating: "s", count: 4000)
        let job = try XCTUnwrap(PayloadHelpers.job(#"{"aps":{"alert":{"title":"T","subtitle":"\#(subtitle)","body":"\#(body)"}},"keep":"\#(String(repeating: "k", count: 100))"}"#))
        let (request, diagnostics) = try XCTUnwrap(PayloadHelpers.render(job, media: [:]))
        XCTAssertLessThanOrEqual(request.byteCount, 4096)
        XCTAssertEqual(request.payload.value(at: "/aps/alert/body")?.stringValue?.count, 40)
        XCTAssertEqual(request.payload.value(at: "/aps/alert/body")?.stringValue?.hasSuffix("…"), true)
        XCTAssertLessThan(try XCTUnwrap(request.payload.value(at: "/aps/alert/subtitle")?.stringValue?.count), 4000)
        XCTAssertEqual(request.payload.value(at: "/keep")?.stringValue?.count, 100, "custom keys are never cut")
        XCTAssertEqual(diagnostics.map(\.pointer), ["/aps/alert/body", "/aps/alert/subtitle"])
    }

    func testSourceKeysAreDroppedFirstWhenThePayloadMustShrink() throws {
        let body = String(repeating: "b", count: 3950)
        let job = try XCTUnwrap(PayloadHelpers.job(#"{"aps":{"alert":{"body":"\#(body)"}},"image_url":"https://m.example/a-long-original-name.jpg"}"#))
        let (request, diagnostics) = try XCTUnwrap(PayloadHelpers.render(job, media: ["/image_url": rendered("https://cdn.example/a.jpg")], options: sourceKeys))
        XCTAssertNil(request.payload.value(at: "/image_url_source"))
        XCTAssertEqual(request.payload.value(at: "/aps/alert/body")?.stringValue, body, "dropping the source key was enough")
        XCTAssertEqual(diagnostics.codes, ["payload_shortened"])
    }

    func testLongBodyIsTruncatedAtGraphemeBoundary() throws {
        let body = String(repeating: "👨‍👩‍👧‍👦", count: 200)   // 25 bytes per grapheme
        let job = try XCTUnwrap(PayloadHelpers.job(#"{"aps":{"alert":{"title":"T","body":"\#(body)"}}}"#))
        let (request, diagnostics) = try XCTUnwrap(PayloadHelpers.render(job, media: [:]))
        XCTAssertLessThanOrEqual(request.byteCount, 4096)
        let cut = try XCTUnwrap(request.payload.value(at: "/aps/alert/body")?.stringValue)
        XCTAssertTrue(cut.hasSuffix("…"))
        XCTAssertTrue(cut.dropLast().allSatisfy { $0 == "👨‍👩‍👧‍👦" })
        XCTAssertGreaterThan(request.byteCount, 4096 - 30, "cut no more than needed")
        XCTAssertEqual(diagnostics.codes, ["payload_shortened"])
    }

    func testEscapedTextIsShortenedToFit() throws {
        // Every quote costs two bytes in JSON but one in UTF-8, so one cut computed on UTF-8 falls short.
        let body = String(repeating: "\\\"q", count: 2100)
        let job = try XCTUnwrap(PayloadHelpers.job(#"{"aps":{"alert":{"title":"T","body":"\#(body)"}}}"#))
        let (request, diagnostics) = try XCTUnwrap(PayloadHelpers.render(job, media: [:]))
        XCTAssertLessThanOrEqual(request.byteCount, 4096)
        XCTAssertEqual(diagnostics.codes, ["payload_shortened"])
        XCTAssertEqual(request.payload.value(at: "/aps/alert/body")?.stringValue?.filter { $0 == "…" }.count, 1)
    }

    func testOversizedCustomDataIsRejected() throws {
        let blob = String(repeating: "x", count: 5000)
        let job = try XCTUnwrap(PayloadHelpers.job(#"{"aps":{"alert":{"title":"T","body":"B"}},"blob":"\#(blob)"}"#))
        guard case .rejected(let diagnostics) = APNsRenderer().render(job, media: [:]) else { return XCTFail("not rejected") }
        XCTAssertEqual(diagnostics.last?.code, "payload_too_large")
        XCTAssertEqual(diagnostics.last?.severity, .error)
        XCTAssertEqual(diagnostics.last?.message.hasPrefix("the payload is 5052 bytes, 956 over the APNs limit of 4096"), true)
        XCTAssertEqual(diagnostics.last?.message.contains("largest keys are /blob (5009 bytes), /aps/alert ("), true, diagnostics.last?.message ?? "")
    }

    func testVoIPLimitIs5120() throws {
        let blob = String(repeating: "x", count: 4500)
        let job = try XCTUnwrap(PayloadHelpers.job(#"{"id":"v","token":"t","push_type":"voip","payload":{"aps":{},"blob":"\#(blob)"}}"#))
        let (request, _) = try XCTUnwrap(PayloadHelpers.render(job, media: [:]))
        XCTAssertEqual(request.header("apns-push-type"), "voip")
        XCTAssertGreaterThan(request.byteCount, 4096)
    }

    func testTruncateHelper() {
        XCTAssertEqual(PayloadShortener.truncate("Hello world", removingAtLeast: 4), "Hell…")
        XCTAssertEqual(PayloadShortener.truncate("Hello world", removingAtLeast: 5), "Hel…")
        XCTAssertNil(PayloadShortener.truncate("H", removingAtLeast: 5))
        XCTAssertEqual(PayloadShortener.truncate("é́é́é́", removingAtLeast: 1), "é́é́…")
        XCTAssertEqual(PayloadShortener.truncate("Hello…", removingAtLeast: 2), "Hel…", "no double ellipsis")
        XCTAssertEqual(PayloadShortener.truncate("Hello world", removingAtLeast: 9, keeping: 6), "Hello…")
        XCTAssertNil(PayloadShortener.truncate("Hello", removingAtLeast: 3, keeping: 6), "never below the minimum")
    }
}
