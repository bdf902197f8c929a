import Foundation
import RichPush
import XCTest
import TestSupport

/// The preview's own rules: which cached URLs may be read back (never a path outside the cache's objects), and
/// which secrets of media URLs are removed before a page sees the report.
final class StoryPreviewTests: XCTestCase {
    private let digest = "b07cf3cc0dc8829b34dc0a2fbb12dca517046e11da2a03a91845da06d63d8b4a"

    func testCachedObjectPathAcceptsOnlyObjectNamesOfTheLayout() throws {
        let path = try XCTUnwrap(CachedObjectPath(cachedURL: "https://cdn.example.com/richpush/objects/b0/7c/\(digest).jpg"))
        XCTAssertEqual(path.key.hexDigest, digest)
        XCTAssertEqual(path.fileExtension, "jpg")
        XCTAssertNotNil(CachedObjectPath(cachedURL: "objects/b0/7c/\(digest).png"))

        let refused = [
            "https://cdn.example.com/richpush/objects/../../../etc/passwd",
            "https://cdn.example.com/objects/b0/7c/../../../../etc/passwd",
            "https://cdn.example.com/objects/b0/7c/\(digest).jpg/..",
            "https://cdn.example.com/objects/b0/%2e%2e/\(digest).jpg",
            "https://cdn.example.com/objects/b0/7c/..%2f..%2f\(digest).jpg",
            "https://cdn.example.com/objects/b0/7c\\..\\\(digest).jpg",
            "https://cdn.example.com/objects/ff/ff/\(digest).jpg",  // shard does not match the digest
            "https://cdn.example.com/objects/b0/7c/\(digest).json",  // the metadata, not an object
            "https://cdn.example.com/objects/b0/7c/\(digest).jpg.json",
            "https://cdn.example.com/objects/b0/7c/\(digest.uppercased()).jpg",
            "https://cdn.example.com/objects/b0/7c/\(digest).jpg?x=1",
            "https://cdn.example.com/negative/b0/7c/\(digest).jpg",
            "https://cdn.example.com/objects/b0/7c/\(digest)\0.jpg",
            "/etc/passwd", "", "objects",
        ]
        for url in refused {
            XCTAssertNil(CachedObjectPath(cachedURL: url), url)
        }
    }

    func testDataURLReadsOnlyTheStoresOwnObjects() async throws {
        let directory = try makeTemporaryDirectory("preview")
        let cache = directory.appendingPathComponent("cache")
        let file = directory.appendingPathComponent("push.json")
        try Data(#"{"aps":{"alert":"x"},"image_url":"https://media.example.com/hero.jpg"}"#.utf8).write(to: file)
        let origin = "https://media.example.com/=" + packageRoot.appendingPathComponent("Fixtures/media").path
        let output = try CommandRunner.run(["validate", "--format", "json", "--local-origin", origin, "--cache-dir", cache.path, file.path])
        XCTAssertEqual(output.status, 0, output.standardError)
        let reports = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [[String: Any]])
        let media = try XCTUnwrap((reports.first?["results"] as? [[String: Any]])?.first?["media"] as? [[String: Any]])
        let cachedURL = try XCTUnwrap(media.first?["cached_url"] as? String)

        let store = try FileMediaStore(configuration: CacheConfiguration(root: cache, publicBaseURL: "https://cdn.example.com/richpush"))
        let read = await StoryPreview.dataURL(of: cachedURL, in: store)
        let dataURL = try XCTUnwrap(read)
        XCTAssertTrue(dataURL.hasPrefix("data:image/jpeg;base64,"))
        let bytes = try XCTUnwrap(Data(base64Encoded: String(dataURL.dropFirst("data:image/jpeg;base64,".count))))
        XCTAssertEqual(bytes.count, media.first?["bytes"] as? Int)
        XCTAssertEqual(Array(bytes.prefix(2)), [0xFF, 0xD8])

        // The same object under another host, a traversal, and a key the store does not hold: nothing is read.
        let path = cachedURL.replacingOccurrences(of: "https://cdn.example.com/richpush/", with: "")
        let refusedDataURL = await StoryPreview.dataURL(of: "https://elsewhere.example/" + path, in: store)
        XCTAssertNil(refusedDataURL)
        let traversal = await StoryPreview.dataURL(of: "https://cdn.example.com/richpush/objects/../../push.json", in: store)
        XCTAssertNil(traversal)
        let absent = await StoryPreview.dataURL(of: "https://cdn.example.com/richpush/objects/00/00/" + String(repeating: "0", count: 64) + ".jpg", in: store)
        XCTAssertNil(absent)
    }

    func testRedactionRemovesMediaSecretsEverywhereAndKeepsLinks() throws {
        let source = "https://user:secret@media.example.com/a.jpg?X-Amz-Signature=abc"
        let report = try JSONParser.parse(Data("""
            {"file":"f","results":[{"apns":{"payload":{"attachment_source":"\(source)","link":"https://shop.example.com/?utm=1"}},
             "media":[{"pointer":"/attachment","source":"\(source)","status":"failed",
                       "error":{"code":"http_status","message":"\(source): redirected to https://cdn.example.org/b.jpg?token=t, 404"}}],
             "diagnostics":[{"severity":"warning","pointer":"/attachment","code":"x","message":"image \(source) failed"}]}]}
            """.utf8))
        let text = String(decoding: MediaURLRedaction(report: report).redact(report).serialized(), as: UTF8.self)
        for secret in ["secret", "user:", "X-Amz-Signature", "token=t"] {
            XCTAssertFalse(text.contains(secret), "\(secret) in \(text)")
        }
        XCTAssertTrue(text.contains("https://media.example.com/a.jpg"), text)
        XCTAssertTrue(text.contains("https://shop.example.com/?utm=1"), "a story link is not a media URL: \(text)")
    }

    // The story field and the screen state (issue 28, item 7): computed in Swift, so the page applies no rule.

    /// The preview document of `documents`, checked for structure only (as `validate --no-fetch` does).
    private func previewDocument(_ documents: [String], options: PayloadOptions = PayloadOptions()) async throws -> [String: JSONValue] {
        var configuration = EnricherConfiguration()
        configuration.payload = options
        let enricher = Enricher(checkingStructureOnly: configuration)
        var results: [JSONValue] = []
        for document in documents {
            results += await enricher.enrich(document: Data(document.utf8)).map { $0.json(parts: ResultParts.all.subtracting(.request)) }
        }
        let report = JSONValue.object(["file": .string("f"), "results": .array(results)])
        let preview = await StoryPreview.build(reports: [report], valid: true, store: nil, options: options)
        return try XCTUnwrap(preview.json.objectValue).reduce(into: [:]) { $0[$1.key] = $1.value }
    }

    private func results(_ document: [String: JSONValue]) -> [JSONValue] {
        document["reports"]?.arrayValue?.first?.objectValue?["results"]?.arrayValue ?? []
    }

    func testStoryFieldFindsPagesWhereTheSDKReadsThem() async throws {
        let pages = #"{"pages":[{"image":"https://media.example.com/a.jpg","title":"One","subtitle":"Sub","duration":7,"link":"https://shop.example.com/a","button_title":"Buy"},{"image":"https://media.example.com/b.jpg"}]}"#
        let alert = #""aps":{"alert":{"title":"T","body":"B"}}"#
        // `u` as a JSON string holding the story, as Pushwoosh's userdata often arrives.
        let container = String(decoding: JSONValue.object(["pw_stories": try JSONParser.parse(Data(pages.utf8))]).serialized(), as: UTF8.self)
        let inString = String(decoding: JSONValue.string(container).serialized(), as: UTF8.self)
        let document = try await previewDocument([
            "{\(alert),\"pw_stories\":\(pages)}",
            "{\(alert),\"u\":\(inString)}",
            "{\(alert),\"userdata\":{\"pw_stories\":\(pages)}}",
        ])
        let found = results(document).map { $0.objectValue?["story"]?.objectValue }
        XCTAssertEqual(found.map { $0?["pointer"]?.stringValue }, ["/pw_stories", "/u/pw_stories", "/userdata/pw_stories"])
        XCTAssertEqual(found.map { $0?["container_is_string"]?.boolValue }, [false, true, false])
        for story in found {
            let shown = try XCTUnwrap(story?["pages"]?.arrayValue).compactMap(\.objectValue)
            XCTAssertEqual(shown.count, 2)
            XCTAssertEqual(shown[0]["image"], .string("https://media.example.com/a.jpg"))
            XCTAssertEqual(shown[0]["title"], .string("One"))
            XCTAssertEqual(shown[0]["subtitle"], .string("Sub"))
            XCTAssertEqual(shown[0]["duration"], .number("7"))
            XCTAssertEqual(shown[0]["duration_is_default"], .bool(false))
            XCTAssertEqual(shown[0]["link"], .string("https://shop.example.com/a"))
            XCTAssertEqual(shown[0]["button_title"], .string("Buy"))
            XCTAssertEqual(shown[1]["duration"], .number(String(PayloadOptions.deviceDefaultStoryDuration)))
            XCTAssertEqual(shown[1]["duration_is_default"], .bool(true))
            XCTAssertNil(shown[1]["link"])
        }
        XCTAssertEqual(results(document).map { $0.objectValue?["screen"]?.objectValue?["state"]?.stringValue }, ["story", "story", "story"])
    }

    func testStoryFieldAttachesPageFindingsBySenderPageAndFollowsTheStoryKey() async throws {
        let story = #"{"pages":[{"title":"no image"},{"image":"https://media.example.com/a.jpg","duration":"6"}]}"#
        let document = try await previewDocument([#"{"aps":{"alert":"Hi"},"pw_stories":"# + story + "}"])
        let result = try XCTUnwrap(results(document).first?.objectValue)
        let page = try XCTUnwrap(result["story"]?.objectValue?["pages"]?.arrayValue?.first?.objectValue)
        XCTAssertEqual(page["pointer"], .string("/pw_stories/pages/0"))
        // The page the sender numbered 1 (page 0 had no image): its findings, and only its, sit with it.
        let codes = page["findings"]?.arrayValue?.compactMap { $0.objectValue?["code"]?.stringValue }
        XCTAssertEqual(codes, ["story_duration_string"])
        XCTAssertEqual(result["screen"]?.objectValue?["alert"], .object(["body": .string("Hi")]))

        var options = PayloadOptions()
        options.storyKey = "stories"
        let renamed = try await previewDocument([#"{"aps":{"alert":"Hi"},"stories":"# + story + "}"], options: options)
        XCTAssertEqual(results(renamed).first?.objectValue?["story"]?.objectValue?["pointer"], .string("/stories"))
    }

    func testScreenStatesForFallbackSilentRejectedAndNotJSON() async throws {
        let document = try await previewDocument([
            #"{"aps":{"alert":{"title":"Hello","body":"World"}},"pw_stories":"garbage"}"#,
            #"{"aps":{"content-available":1}}"#,
            #"[1,2]"#,
            "hello world",
        ])
        let screens = results(document).map { $0.objectValue?["screen"]?.objectValue ?? JSONObject() }
        XCTAssertEqual(screens.map { $0["state"]?.stringValue }, ["alert", "silent", "rejected", "not_json"])
        XCTAssertEqual(results(document).map { $0.objectValue?["story"] }, [.null, .null, .null, .null])
        XCTAssertEqual(screens[0]["alert"], .object(["title": .string("Hello"), "body": .string("World")]))
        XCTAssertEqual(screens[2]["reason"]?.stringValue, "the document is an array; a payload must be a JSON object")
        XCTAssertTrue(screens[3]["reason"]?.stringValue?.contains("line 1, column 1: found 'h'") == true, "\(screens[3])")
        XCTAssertEqual(document["summary"], .string("Structure only: media not fetched (--no-fetch). 2 of 4 jobs rejected: nothing is sent for them."))
    }

    func testSummaryNeverSaysRenderedForRejectedOrMediaFreeInput() async throws {
        let notJSON = try await previewDocument(["hello world"])
        XCTAssertEqual(notJSON["summary"], .string("Not JSON: nothing would be sent."))
        let rejected = try await previewDocument([#"{"aps":"x"}"#, "hello"])
        XCTAssertEqual(rejected["summary"], .string("Rejected: nothing would be sent."))
        func report(_ media: [JSONValue]) -> JSONValue {
            .object(["results": .array([.object(["screen": .object(["state": .string("alert")]), "media": .array(media)])])])
        }
        XCTAssertEqual(StoryPreview.summary(of: [report([])], fetched: true), "Nothing fetched: the push names no media.")
        let rendered = JSONValue.object(["cached_url": .string("https://cdn.test/x.jpg")])
        let failed = JSONValue.object(["error": .object(["code": .string("http_status")])])
        XCTAssertEqual(StoryPreview.summary(of: [report([rendered])], fetched: true), "Media fetched and rendered (1 of 1).")
        XCTAssertEqual(StoryPreview.summary(of: [report([rendered, failed])], fetched: true),
                       "1 of 2 media fetched and rendered; see the findings for the rest.")
    }

    func testURLListIsOnlyLinesOfHTTPURLs() {
        XCTAssertNil(URLListStory.urls(in: Data("hello world".utf8)))
        XCTAssertNil(URLListStory.urls(in: Data("https://a.test/x.jpg\nnot a url\n".utf8)))
        XCTAssertEqual(URLListStory.urls(in: Data("# c\nHTTPS://a.test/x.jpg\n\nhttp://b.test/y.png\n".utf8)),
                       ["HTTPS://a.test/x.jpg", "http://b.test/y.png"])
        XCTAssertNil(URLListStory.document(from: Data("hello world".utf8)))
    }
}
