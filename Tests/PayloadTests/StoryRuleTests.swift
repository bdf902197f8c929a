import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushPayload

final class StoryRuleTests: XCTestCase {
    private func storyJob(_ pages: String, options: PayloadOptions = PayloadOptions()) -> NotificationJob? {
        PayloadHelpers.job(#"{"aps":{"alert":{"title":"T","body":"B"}},"pw_stories":{"pages":"# + pages + "}}", options: options)
    }

    private let image = #""image":"https://m.example/1.jpg""#

    /// One row per page rule: page JSON, expected codes with pointers, expected page after normalization (nil: dropped).
    func testPageRules() throws {
        let cases: [(String, [String], String?)] = [
            ("{\(image),\"duration\":5}", [], "{\(image),\"duration\":5}"),
            ("{\(image),\"duration\":\"7\"}", ["story_duration_string@/pw_stories/pages/0/duration"], "{\(image),\"duration\":7}"),
            ("{\(image),\"duration\":\"5s\"}", ["story_duration_invalid@/pw_stories/pages/0/duration"], "{\(image)}"),
            ("{\(image),\"duration\":0}", ["story_duration_out_of_range@/pw_stories/pages/0/duration"], "{\(image)}"),
            ("{\(image),\"duration\":-3}", ["story_duration_out_of_range@/pw_stories/pages/0/duration"], "{\(image)}"),
            ("{\(image),\"duration\":0.5}", ["story_duration_out_of_range@/pw_stories/pages/0/duration"], "{\(image),\"duration\":1}"),
            ("{\(image),\"duration\":31}", ["story_duration_out_of_range@/pw_stories/pages/0/duration"], "{\(image),\"duration\":30}"),
            ("{\(image),\"duration\":true}", ["story_duration_invalid@/pw_stories/pages/0/duration"], "{\(image)}"),
            ("{\(image),\"link\":\"https://e.example\"}", [], "{\(image),\"link\":\"https://e.example\"}"),
            ("{\(image),\"link\":\"javascript:alert(1)\"}", ["story_link_scheme_not_allowed@/pw_stories/pages/0/link"], "{\(image)}"),
            ("{\(image),\"link\":\"data:text/html,x\"}", ["story_link_scheme_not_allowed@/pw_stories/pages/0/link"], "{\(image)}"),
            ("{\(image),\"link\":\"file:///etc/passwd\"}", ["story_link_scheme_not_allowed@/pw_stories/pages/0/link"], "{\(image)}"),
            ("{\(image),\"link\":\"http://e.example\"}", [], "{\(image),\"link\":\"http://e.example\"}"),
            ("{\(image),\"link\":\"yourapp://page1\"}", [], "{\(image),\"link\":\"yourapp://page1\"}"),
            ("{\(image),\"link\":\"about:blank\"}", ["story_link_scheme_not_allowed@/pw_stories/pages/0/link"], "{\(image)}"),
            ("{\(image),\"link\":\"blob:https://e.example/x\"}", ["story_link_scheme_not_allowed@/pw_stories/pages/0/link"], "{\(image)}"),
            // The Pushwoosh SDK opens any URL with a scheme, so only the denied schemes are removed.
            ("{\(image),\"link\":\"mailto:a@e.example\"}", [], "{\(image),\"link\":\"mailto:a@e.example\"}"),
            ("{\(image),\"link\":\"tel:+15551234\",\"button_title\":\"Call\"}", [],
             "{\(image),\"link\":\"tel:+15551234\",\"button_title\":\"Call\"}"),
            ("{\(image),\"link\":\"sms:+15551234\"}", [], "{\(image),\"link\":\"sms:+15551234\"}"),
            ("{\(image),\"link\":\"yourapp:open/offers\"}", [], "{\(image),\"link\":\"yourapp:open/offers\"}"),
            ("{\(image),\"link\":\"javascript:x\",\"button_title\":\"Go\"}",
             ["story_link_scheme_not_allowed@/pw_stories/pages/0/link", "story_button_title_removed@/pw_stories/pages/0/button_title"], "{\(image)}"),
            ("{\(image),\"button_title\":\"\(String(repeating: "b", count: 31))\"}", ["text_too_long@/pw_stories/pages/0/button_title"], nil),
            ("{\(image),\"title\":\"\(String(repeating: "t", count: 61))\"}", ["text_too_long@/pw_stories/pages/0/title"], nil),
            ("{\(image),\"subtitle\":\"\(String(repeating: "s", count: 121))\"}", ["text_too_long@/pw_stories/pages/0/subtitle"], nil),
            ("{\(image),\"title\":\"\(String(repeating: "t", count: 60))\"}", [], nil),
            ("{\(image),\"title\":5}", ["wrong_type@/pw_stories/pages/0/title"], "{\(image)}"),
            ("{\(image),\"color\":\"red\"}", ["story_page_unknown_key@/pw_stories/pages/0/color"], "{\(image),\"color\":\"red\"}"),
        ]
        for (page, codes, expected) in cases {
            let job = try XCTUnwrap(storyJob("[\(page)]"), page)
            XCTAssertEqual(job.diagnostics.map { "\($0.code)@\($0.pointer)" }, codes, page)
            XCTAssertTrue(job.isStory, page)
            if let expected {
                XCTAssertEqual(job.payload["pw_stories"]?.value(at: "/pages/0"), PayloadHelpers.parse(expected), page)
            }
        }
    }

    /// App schemes are allowed by default; an allow-list (`--link-scheme`) narrows links to its schemes.
    func testLinkSchemesCanBeNarrowed() throws {
        let page = "[{\(image),\"link\":\"myapp://open/1\"}]"
        XCTAssertEqual(try XCTUnwrap(storyJob(page)).diagnostics, [])
        var options = PayloadOptions()
        options.allowedLinkSchemes = ["https", "myapp"]
        XCTAssertEqual(try XCTUnwrap(storyJob(page, options: options)).diagnostics, [])
        options.allowedLinkSchemes = ["https"]
        let narrowed = try XCTUnwrap(storyJob(page, options: options))
        XCTAssertEqual(narrowed.diagnostics.codes, ["story_link_scheme_not_allowed"])
        XCTAssertTrue(narrowed.diagnostics[0].message.contains("--link-scheme"), narrowed.diagnostics[0].message)
        options.allowedLinkSchemes = ["https", "javascript"]
        XCTAssertEqual(try XCTUnwrap(storyJob("[{\(image),\"link\":\"javascript:x\"}]", options: options)).diagnostics.codes,
                       ["story_link_scheme_not_allowed"], "denied schemes stay denied")
    }

    /// Links elsewhere (Pushfa link_url, url, actions; click_action; Pushwoosh l) follow the same rule.
    func testLinksEverywhereFollowTheSameRule() throws {
        // Pushfa's link_url is the device's `url` (its SDK's name), checked there.
        let pushfa = try XCTUnwrap(PayloadHelpers.job(#"{"title":"t","link_url":"javascript:alert(1)","actions":[{"title":"A","url":"myapp://a"},{"title":"B","url":"vbscript:x"}]}"#))
        XCTAssertNil(pushfa.payload["url"])
        XCTAssertEqual(pushfa.payload["actions"], PayloadHelpers.parse(#"[{"title":"A","url":"myapp://a"}]"#))
        XCTAssertEqual(Set(pushfa.diagnostics.map { "\($0.code)@\($0.pointer)" }),
                       ["link_scheme_not_allowed@/url", "action_invalid@/actions/1/url"])
        let raw = try XCTUnwrap(PayloadHelpers.job(#"{"aps":{"alert":"x"},"click_action":"file:///x","l":"yourapp://page1","url":"/relative/path"}"#))
        XCTAssertNil(raw.payload["click_action"])
        XCTAssertEqual(raw.payload["l"], .string("yourapp://page1"))
        XCTAssertEqual(raw.payload["url"], .string("/relative/path"), "a value without a scheme is the app's business")
        XCTAssertEqual(raw.diagnostics.codes, ["link_scheme_not_allowed"])
    }

    func testInvalidPagesAreDroppedAndOthersKept() throws {
        let job = try XCTUnwrap(storyJob("[{\"image\":\"ftp://x/a.jpg\"},7,{\(image)},{\"title\":\"no image\"}]"))
        XCTAssertEqual(job.diagnostics.map { "\($0.code)@\($0.pointer)" }, [
            "story_page_image_invalid@/pw_stories/pages/0/image", "story_page_not_object@/pw_stories/pages/1",
            "story_page_image_invalid@/pw_stories/pages/3/image",
        ])
        XCTAssertTrue(job.diagnostics.allSatisfy { $0.severity == .error })
        XCTAssertEqual(job.payload["pw_stories"]?.value(at: "/pages")?.arrayValue?.count, 1)
        // The media pointer uses the sender's page number (page 2), not the position after dropping.
        XCTAssertEqual(job.media, [MediaReference(pointer: "/pw_stories/pages/2/image", url: "https://m.example/1.jpg",
                                                  role: .storyPage(index: 0), variantName: "story")])
        let (request, _) = try XCTUnwrap(PayloadHelpers.render(job, media: ["/pw_stories/pages/2/image": .failed(RememberedFailure(code: "corrupt", message: "bad"))]))
        XCTAssertNil(request.payload.value(at: "/pw_stories"))
        let (_, diagnostics) = try XCTUnwrap(PayloadHelpers.render(job, media: ["/pw_stories/pages/2/image": .failed(RememberedFailure(code: "corrupt", message: "bad"))]))
        XCTAssertTrue(diagnostics.contains { $0.code == "story_page_dropped" && $0.pointer == "/pw_stories/pages/2" && $0.message.hasPrefix("story page 3 ") }, "\(diagnostics)")
    }

    func testTooManyPagesAreCut() throws {
        var options = PayloadOptions()
        options.maximumStoryPages = 3
        let pages = "[" + (0..<5).map { "{\"image\":\"https://m.example/\($0).jpg\"}" }.joined(separator: ",") + "]"
        let job = try XCTUnwrap(storyJob(pages, options: options))
        XCTAssertEqual(job.diagnostics.codes, ["story_too_many_pages"])
        XCTAssertEqual(job.media.count, 3)
    }

    func testMalformedStoriesFallBackToPlainAlert() throws {
        let cases = [
            #"{"aps":{"alert":"x","category":"PW_STORIES"},"pw_stories":{"pages":[]}}"#,
            #"{"aps":{"alert":"x","category":"PW_STORIES"},"pw_stories":{}}"#,
            #"{"aps":{"alert":"x","category":"PW_STORIES"},"pw_stories":"garbage"}"#,
            #"{"aps":{"alert":"x","category":"PW_STORIES"},"pw_stories":[1]}"#,
            #"{"aps":{"alert":"x","category":"PW_STORIES"},"pw_stories":{"pages":[{"title":"no image"}]}}"#,
            #"{"aps":{"alert":"x","category":"PW_STORIES"}}"#,
        ]
        for text in cases {
            let job = try XCTUnwrap(PayloadHelpers.job(text), text)
            XCTAssertFalse(job.isStory, text)
            XCTAssertNil(job.payload["pw_stories"], text)
            XCTAssertNil(job.payload["aps"]?.value(at: "/category"), text)
            XCTAssertTrue(job.diagnostics.codes.contains("story_malformed"), text)
        }
    }

    /// Issue 26: Pushwoosh's StoryPayloadParser reads 0 pages from a string `pw_stories`, so it is sent as the
    /// object it holds.
    func testStoryAsJSONStringIsSentAsAnObject() throws {
        let job = try XCTUnwrap(PayloadHelpers.job(#"{"aps":{"alert":"x"},"pw_stories":"{\"pages\":[{\"image\":\"https://m.example/1.jpg\"}]}"}"#))
        XCTAssertTrue(job.isStory)
        XCTAssertEqual(job.diagnostics.codes, ["story_json_string"])
        XCTAssertEqual(job.diagnostics.first?.severity, .warning)
        let (request, _) = try XCTUnwrap(PayloadHelpers.render(job, media: PayloadHelpers.renderedMedia(for: job)))
        XCTAssertEqual(request.payload.value(at: "/pw_stories"), PayloadHelpers.parse(#"{"pages":[{"image":"https://cdn.example.com/m/0.jpg"}]}"#))
    }

    /// Issue 17 item 5: the Pushwoosh SDK also reads the story from `u` or `userdata`, as an object or a JSON string.
    func testStoriesUnderUOrUserdataAreRewrittenInPlaceAndForm() throws {
        let story = #"{"pages":[{"image":"https://m.example/1.jpg","title":"One"}]}"#
        let escaped = story.replacingOccurrences(of: "\"", with: "\\\"")
        let rendered = #"{"pages":[{"image":"https://cdn.example.com/m/0.jpg","title":"One"}]}"#
        let cases: [(String, String, JSONValue)] = [
            (#"{"aps":{"alert":{},"category":"PW_STORIES"},"u":{"pw_stories":\#(story),"k":1}}"#, "/u",
             PayloadHelpers.parse(#"{"pw_stories":\#(rendered),"k":1}"#)),
            (#"{"aps":{"alert":{},"category":"PW_STORIES"},"userdata":{"pw_stories":\#(story)}}"#, "/userdata",
             PayloadHelpers.parse(#"{"pw_stories":\#(rendered)}"#)),
            (#"{"aps":{"alert":{},"category":"PW_STORIES"},"u":"{\"k\":1,\"pw_stories\":\#(escaped)}"}"#, "/u",
             .string(#"{"k":1,"pw_stories":\#(rendered)}"#)),
            // The container may be a string; the story inside it must be an object for the SDK to read it.
            (#"{"aps":{"alert":{},"category":"PW_STORIES"},"u":{"pw_stories":"\#(escaped)"}}"#, "/u",
             .object(["pw_stories": PayloadHelpers.parse(rendered)])),
        ]
        for (text, container, expected) in cases {
            let job = try XCTUnwrap(PayloadHelpers.job(text), text)
            XCTAssertTrue(job.isStory, text)
            XCTAssertEqual(job.media.map(\.pointer), [container + "/pw_stories/pages/0/image"], text)
            let (request, _) = try XCTUnwrap(PayloadHelpers.render(job, media: PayloadHelpers.renderedMedia(for: job)), text)
            XCTAssertEqual(request.payload.value(at: container), expected, text)
            XCTAssertEqual(request.payload.value(at: "/aps/category"), .string("PW_STORIES"), text)
            XCTAssertEqual(request.payload.value(at: "/aps/alert/title"), .string("One"), text)
        }
    }
}
