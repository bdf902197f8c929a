import Foundation
import XCTest
import TestSupport

/// Issue 26: what the real device SDK code reads from `richpush process` output is exactly what the author sent.
///
/// `../shared/sdk-contracts/run` compiles Pushwoosh's own `StoryPayloadParser` (and AppAmbit's parser) on Linux and
/// prints, for each result line, what they read from its device payload (`apns.payload`).
final class DeviceSDKContractTests: XCTestCase {
    private static let contractRunner = packageRoot.deletingLastPathComponent()
        .appendingPathComponent("shared/sdk-contracts/run")
    private static let publicBase = "https://cdn.example.test/richpush"

    /// The pages as the author wrote them: links of every scheme the SDK opens, a numeric-string duration, empty
    /// and missing texts.
    private let pages: [[String: Any]] = [
        ["image": "https://media.example.com/story1.jpg", "title": "Coats", "subtitle": "Warm and light", "duration": 5,
         "link": "https://shop.example.com/coats", "button_title": "Shop coats"],
        ["image": "https://media.example.com/story2.jpg", "title": "Call us", "duration": 7, "link": "tel:+15551234",
         "button_title": "Call"],
        ["image": "https://media.example.com/story3.jpg", "subtitle": "Mail", "link": "mailto:help@example.com",
         "button_title": "Write"],
        ["image": "https://media.example.com/hero.jpg", "title": "Offers", "link": "yourapp:open/offers", "button_title": "Open"],
    ]

    private func json(_ value: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]), as: UTF8.self)
    }

    /// Every place and form the author may put the story in, with the alert it came with.
    private func documents() throws -> [(name: String, document: String)] {
        let story: [String: Any] = ["pages": pages]
        let storyText = try json(story)
        let aps: [String: Any] = ["alert": ["title": "Autumn", "body": "This week's picks"]]
        let shaped: [(String, [String: Any])] = [
            ("root object", ["aps": aps, "pw_stories": story]),
            ("root string", ["aps": aps, "pw_stories": storyText]),
            ("u object", ["aps": aps, "u": ["pw_stories": story, "campaign": "c1"]]),
            ("u string", ["aps": aps, "u": try json(["pw_stories": story, "campaign": "c1"])]),
            ("u object holding a string story", ["aps": aps, "u": ["pw_stories": storyText]]),
            ("userdata object", ["aps": aps, "userdata": ["pw_stories": story]]),
            ("sender category", ["aps": aps.merging(["category": "SHOP_STORIES"]) { $1 }, "pw_stories": story]),
            ("envelope", ["token": "ab12", "payload": ["aps": aps, "pw_stories": story]]),
            ("pushwoosh data", ["content": "This week's picks", "ios_title": "Autumn", "data": ["pw_stories": story]]),
        ]
        return try shaped.map { ($0.0, try json($0.1)) }
    }

    func testPushwooshParserReadsEveryPageAsSentFromEveryPlacement() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.contractRunner.path) else {
            throw XCTSkip("the device SDK contract runner is not at \(Self.contractRunner.path)")
        }
        let directory = try makeTemporaryDirectory("sdk-contract")
        let documents = try documents()
        let output = try CommandRunner.run(
            ["process", "--local-origin", "https://media.example.com/=" + fixture("media").path,
             "--cache-dir", directory.appendingPathComponent("cache").path, "--public-base-url", Self.publicBase],
            input: documents.map(\.document).joined(separator: "\n") + "\n")
        XCTAssertEqual(output.status, 0, output.standardError)
        XCTAssertEqual(output.lines.count, documents.count)
        let read = try readBySDKs(output.standardOutput)
        XCTAssertEqual(read.count, documents.count, "one device payload per job")

        for ((name, _), (result, sdk)) in zip(documents, zip(output.lines, read)) {
            let status = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.utf8)) as? [String: Any])["status"] as? String
            XCTAssertEqual(status, "enriched", "\(name): \(result)")
            let pages = try XCTUnwrap(sdk["pushwoosh_stories"] as? [[String: Any]], name)
            XCTAssertEqual(pages.count, pages.count, "\(name): the SDK must read every page: \(sdk)")
            for (sent, seen) in zip(pages, pages) {
                for key in ["title", "subtitle", "link", "button_title"] {
                    XCTAssertEqual(seen[key] as? String, sent[key] as? String, "\(name) \(key)")
                }
                XCTAssertEqual(seen["duration"] as? Double, (sent["duration"] as? Int).map(Double.init) ?? 5, "\(name) duration")
                let image = try XCTUnwrap(seen["image"] as? String, name)
                XCTAssertTrue(image.hasPrefix(Self.publicBase + "/objects/"), "\(name): page image on the cache: \(image)")
            }
        }
    }

    /// Each shape's attachment reaches the SDK that reads that shape's device payload, on the cache: Pushwoosh's
    /// extension (only for a `pw_msg` push, from `attachment`, custom data from the `u` string), Firebase's
    /// (`fcm_options.image`), and the `image` key AppAmbit's parser and the Pushfa SDK read.
    func testEveryShapesAttachmentReachesItsSDK() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.contractRunner.path) else {
            throw XCTSkip("the device SDK contract runner is not at \(Self.contractRunner.path)")
        }
        let directory = try makeTemporaryDirectory("sdk-contract")
        let image = "https://media.example.com/hero.jpg"
        let documents = [
            #"{"content":"Back in stock","ios_attachment":"\#(image)","data":{"order":7,"tags":["a"]},"ios_badges":"+1"}"#,
            #"{"request":{"auth":"SECRET","notifications":[{"content":"One","ios_attachment":"\#(image)"},{"content":"Two","ios_attachment":"\#(image)","data":{"n":2}}]}}"#,
            #"{"message":{"token":"fcm","notification":{"title":"T","body":"B","image":"\#(image)"}}}"#,
            #"{"title":"T","body":"B","image_url":"\#(image)","additional_data":{"order":7}}"#,
            #"{"aps":{"alert":{"title":"T","body":"B"}},"image":"\#(image)"}"#,
        ]
        let output = try CommandRunner.run(
            ["process", "--local-origin", "https://media.example.com/=" + fixture("media").path,
             "--cache-dir", directory.appendingPathComponent("cache").path, "--public-base-url", Self.publicBase],
            input: documents.joined(separator: "\n") + "\n")
        XCTAssertEqual(output.status, 0, output.standardError)
        let read = try readBySDKs(output.standardOutput)
        XCTAssertEqual(read.count, 6, "one device payload per job: \(read)")
        func onCache(_ value: Any?) -> Bool { (value as? String)?.hasPrefix(Self.publicBase + "/objects/") == true }
        for index in 0..<3 {
            XCTAssertEqual(read[index]["pushwoosh_message"] as? Bool, true, "Pushwoosh job \(index)")
            XCTAssertTrue(onCache(read[index]["pushwoosh_attachment"]), "Pushwoosh job \(index): \(read[index])")
        }
        XCTAssertEqual(read[0]["pushwoosh_custom_data"] as? NSDictionary, ["order": 7, "tags": ["a"]] as NSDictionary)
        XCTAssertEqual(read[2]["pushwoosh_custom_data"] as? NSDictionary, ["n": 2] as NSDictionary)
        XCTAssertTrue(onCache(read[3]["firebase_image"]), "FCM: \(read[3])")
        for index in 4..<6 {
            let appAmbit = try XCTUnwrap(read[index]["appambit"] as? [String: Any])
            XCTAssertTrue(onCache(appAmbit["image"]), "image key: \(read[index])")
            XCTAssertEqual(appAmbit["download_extension"] as? String, "jpg")
        }
        XCTAssertFalse(output.standardError.contains("SECRET"), "the API token never reaches the log")
    }

    /// Android fields beside each shape's iOS image change nothing the iOS SDKs read: the same documents with and
    /// without them give the same reads, field for field (issue 38: the iOS half is what it was).
    func testAndroidFieldsLeaveWhatTheIOSSDKsReadUnchanged() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.contractRunner.path) else {
            throw XCTSkip("the device SDK contract runner is not at \(Self.contractRunner.path)")
        }
        let image = "https://media.example.com/hero.jpg", android = "https://media.example.com/story2.jpg"
        let iOSOnly = [
            #"{"content":"Hi","ios_attachment":"\#(image)"}"#,
            #"{"message":{"token":"fcm","notification":{"title":"T","body":"B"},"apns":{"fcm_options":{"image":"\#(image)"}}}}"#,
            #"{"app_id":"a","contents":{"en":"Hi"},"ios_attachments":{"p":"\#(image)"}}"#,
        ]
        let crossPlatform = [
            #"{"content":"Hi","ios_attachment":"\#(image)","android_banner":"\#(android)","android_custom_icon":"\#(image)"}"#,
            #"{"message":{"token":"fcm","notification":{"title":"T","body":"B","image":"\#(android)"},"apns":{"fcm_options":{"image":"\#(image)"}},"android":{"notification":{"image":"\#(android)"}}}}"#,
            #"{"app_id":"a","contents":{"en":"Hi"},"ios_attachments":{"p":"\#(image)"},"big_picture":"\#(android)","large_icon":"\#(image)"}"#,
        ]
        let directory = try makeTemporaryDirectory("sdk-contract")
        func reads(_ documents: [String]) throws -> [NSDictionary] {
            let output = try CommandRunner.run(
                ["process", "--local-origin", "https://media.example.com/=" + fixture("media").path,
                 "--cache-dir", directory.appendingPathComponent("cache").path, "--public-base-url", Self.publicBase],
                input: documents.joined(separator: "\n") + "\n")
            XCTAssertEqual(output.status, 0, output.standardError)
            return try readBySDKs(output.standardOutput).map { read in
                var read = read
                read["status"] = nil   // the cross-platform jobs render more media; the device reads are what count
                return read as NSDictionary
            }
        }
        let before = try reads(iOSOnly), after = try reads(crossPlatform)
        XCTAssertEqual(before.count, 3)
        XCTAssertEqual(after, before)
    }

    /// Runs the contract reader on result lines; one JSON object per device payload.
    private func readBySDKs(_ results: String) throws -> [[String: Any]] {
        let process = Process()
        process.executableURL = Self.contractRunner
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(results.utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "the contract reader failed")
        return try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }
}
