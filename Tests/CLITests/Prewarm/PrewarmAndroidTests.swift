import Foundation
import TestSupport
import XCTest

/// `prewarm` renders a campaign's Android variants with its iOS ones, so the send that follows only reads the cache.
final class PrewarmAndroidTests: XCTestCase {
    func testPrewarmedAndroidFieldsAreCachedAtTheSend() throws {
        let cache = try makeTemporaryDirectory("prewarm-android")
        let origin = "https://media.example.com/=" + fixture("media").path
        let campaign = cache.appendingPathComponent("campaign.json")
        // One line: `process` reads NDJSON.
        try Data((#"{"app_id":"a","contents":{"en":"Hi"},"ios_attachments":{"p":"https://media.example.com/hero.jpg"},"#
            + #""big_picture":"https://media.example.com/story1.jpg","large_icon":"https://media.example.com/logo.png"}"#).utf8)
            .write(to: campaign)
        let common = ["--local-origin", origin, "--cache-dir", cache.appendingPathComponent("cache").path,
                      "--public-base-url", "https://cdn.example.test/rp"]
        let prewarm = try CommandRunner.run(["prewarm"] + common + [campaign.path])
        XCTAssertEqual(prewarm.status, 0, prewarm.standardError)
        let summary = prewarm.standardError.split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertTrue(summary.contains(#""items":3"#) && summary.contains(#""rendered":3"#), summary)

        let send = try CommandRunner.run(["process", "--result", "media"] + common + [campaign.path])
        XCTAssertEqual(send.status, 0, send.standardError)
        let line = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(send.standardOutput.utf8)) as? [String: Any])
        let media = try XCTUnwrap(line["media"] as? [[String: Any]])
        XCTAssertEqual(media.compactMap { $0["variant"] as? String }, ["attachment", "big_picture", "large_icon"])
        XCTAssertEqual(media.compactMap { $0["status"] as? String }, ["cached", "cached", "cached"], send.standardOutput)

        // A URL list names its variants.
        let list = cache.appendingPathComponent("images.txt")
        try Data("https://media.example.com/banner.webp\n".utf8).write(to: list)
        let urls = try CommandRunner.run(["prewarm", "--urls", "--variant", "big_picture", "--variant", "large_icon"] + common + [list.path])
        XCTAssertEqual(urls.status, 0, urls.standardError)
        XCTAssertTrue(urls.standardError.contains(#""rendered":2"#), urls.standardError)
    }
}
