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
}
