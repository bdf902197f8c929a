import Foundation
import XCTest
import TestSupport

/// Issue 26: each of the six input shapes comes back from `process` as the sender's own request, and `validate`
/// reads every shape without ever showing the sender's credentials.
final class SenderRequestCommandTests: XCTestCase {
    private static let image = "https://media.example.com/hero.jpg"
    /// Shape, document, and the pointer in `request` where the cached image must be.
    static let shapes: [(String, String, String)] = [
        ("apns", #"{"aps":{"alert":"x"},"image_url":"\#(image)"}"#, "/image_url"),
        ("envelope", #"{"token":"ab","payload":{"aps":{"alert":"x"},"attachment":"\#(image)"}}"#, "/payload/attachment"),
        ("pushwoosh", #"{"request":{"auth":"SECRET","notifications":[{"content":"x","ios_attachment":"\#(image)"}]}}"#,
         "/request/notifications/0/ios_attachment"),
        ("fcm", #"{"message":{"token":"t","notification":{"title":"T","image":"\#(image)"}}}"#, "/message/notification/image"),
        ("pushfa", #"{"title":"T","body":"B","image_url":"\#(image)","api_private_key":"PRIVATE"}"#, "/image_url"),
        ("onesignal", #"{"app_id":"APP-ID","contents":{"en":"x"},"ios_attachments":{"a":"\#(image)"}}"#, "/ios_attachments/a"),
    ]

    private var shapes: [(String, String, String)] { Self.shapes }

    /// The value at a JSON pointer of a `JSONSerialization` tree.
    static func value(at pointer: String, in root: Any?) -> Any? {
        pointer.split(separator: "/").reduce(root) { value, token in
            if let array = value as? [Any], let index = Int(token) { return array.indices.contains(index) ? array[index] : nil }
            return (value as? [String: Any])?[String(token)]
        }
    }

    func testEveryShapeComesBackAsItsOwnRequest() throws {
        let directory = try makeTemporaryDirectory("sender-request")
        let output = try CommandRunner.run(
            ["process", "--local-origin", "https://media.example.com/=" + fixture("media").path,
             "--cache-dir", directory.appendingPathComponent("cache").path, "--public-base-url", "https://cdn.example.test/rp"],
            input: shapes.map(\.1).joined(separator: "\n") + "\n")
        XCTAssertEqual(output.status, 0, output.standardError)
        XCTAssertEqual(output.lines.count, shapes.count)
        for ((name, _, pointer), line) in zip(shapes, output.lines) {
            let result = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], name)
            XCTAssertEqual(result["status"] as? String, "enriched", "\(name): \(line)")
            let value = Self.value(at: pointer, in: result["request"])
            XCTAssertTrue((value as? String)?.hasPrefix("https://cdn.example.test/rp/objects/") == true, "\(name): \(line)")
        }
        XCTAssertTrue(output.lines[2].contains("SECRET"), "the Pushwoosh request stays postable, with its token")
        XCTAssertFalse(output.standardError.contains("SECRET") || output.standardError.contains("PRIVATE"), output.standardError)
    }

    func testValidateReadsEveryShapeAndNeverShowsCredentials() throws {
        let directory = try makeTemporaryDirectory("sender-request")
        for (name, document, _) in shapes {
            let file = directory.appendingPathComponent(name + ".json")
            try Data(document.utf8).write(to: file)
            for format in ["text", "json"] {
                let output = try CommandRunner.run(["validate", "--no-fetch", "--format", format, file.path])
                XCTAssertEqual(output.status, 0, "\(name) \(format): \(output.standardOutput) \(output.standardError)")
                for secret in ["SECRET", "PRIVATE", "APP-ID"] {
                    XCTAssertFalse(output.standardOutput.contains(secret) || output.standardError.contains(secret),
                                   "\(name) \(format) shows \(secret): \(output.standardOutput)")
                }
            }
        }
    }
}

extension ServeCommandTests {
    /// Issue 26: `serve` hands each of the six shapes back as the same request `process` gives.
    func testEverySenderShapeComesBackThroughServe() throws {
        try start()
        for (name, document, pointer) in SenderRequestCommandTests.shapes {
            let reply = try curl("/v1/enrich", method: "POST", body: Data(document.utf8), contentType: "application/json")
            XCTAssertEqual(reply.status, 200, "\(name): \(reply.body)")
            let value = SenderRequestCommandTests.value(at: pointer, in: reply.json?["request"])
            XCTAssertTrue((value as? String)?.hasPrefix("https://cdn.example.com/richpush/objects/") == true, "\(name): \(reply.body)")
        }
    }
}
