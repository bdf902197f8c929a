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

    /// How often `pattern`'s bytes occur in `line`'s: byte for byte, where `String.contains` would match canonically
    /// equivalent text (and Linux's `JSONSerialization` merges keys that differ only in normalization).
    private static func occurrences(of pattern: String, in line: String) -> Int {
        let bytes = Array(line.utf8), pattern = Array(pattern.utf8)
        guard !pattern.isEmpty, bytes.count >= pattern.count else { return 0 }
        return (0...(bytes.count - pattern.count)).filter { bytes[$0...].starts(with: pattern) }.count
    }

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

    /// Two custom keys that Swift's `==` calls equal ("caf\u{E9}" and "cafe\u{301}", canonically equivalent) are two
    /// keys to the devices' parsers, which compare them by code units. Both reach the sender's request and the
    /// device payload with their own bytes and values, and neither is called a duplicate.
    func testKeysOfDifferentBytesReachTheDeviceAsWritten() throws {
        let documents = [
            #"{"aps":{"alert":"x"},"caf\u00e9":1,"cafe\u0301":2}"#,
            #"{"message":{"token":"t","notification":{"title":"T"},"data":{"caf\u00e9":"1","cafe\u0301":"2"}}}"#,
        ]
        let output = try CommandRunner.run(["process", "--cache-dir", try makeTemporaryDirectory("key-bytes").path],
                                           input: documents.joined(separator: "\n") + "\n")
        XCTAssertEqual(output.status, 0, output.standardError)
        XCTAssertEqual(output.lines.count, 2)
        for (index, (line, quote)) in zip(output.lines, ["", "\""]).enumerated() {
            XCTAssertEqual(Self.occurrences(of: "\"caf\u{E9}\":\(quote)1\(quote)", in: line), 2,
                           "request and device payload, line \(index + 1): \(line)")
            XCTAssertEqual(Self.occurrences(of: "\"cafe\u{301}\":\(quote)2\(quote)", in: line), 2, "line \(index + 1): \(line)")
            XCTAssertEqual(Self.occurrences(of: "duplicate_key", in: line), 0, line)
        }
    }

    /// Every value JSONTestSuite says JSON allows (its 95 `y_` documents: escapes, surrogate pairs, empty and odd keys,
    /// numbers of every form, nesting) placed where each shape carries the author's own data: it comes out of `process`
    /// reading, to Foundation's parser, exactly as the author's document reads, in the request and in the device
    /// payload.
    func testEveryValueJSONAllowsReachesTheRequestAndTheDeviceAsWritten() throws {
        let documents = try JSONTestSuite.documents("y_")
        XCTAssertEqual(documents.count, 95)
        // Shape: the document around a value, where the value must read as written in the request, and how its device
        // payload carries it. A OneSignal or Pushwoosh `data` is an object, so the value goes under a key of its own;
        // Pushwoosh's device payload carries it in `u`, a string of JSON (PWMessage.m reads it so).
        let custom: (Any?) -> Any? = { Self.value(at: "/custom", in: $0) }
        let shapes: [(wrap: (String) -> String, request: String, device: (Any?) -> Any?)] = [
            ({ #"{"aps":{"alert":"x"},"custom":\#($0)}"# }, "/custom", custom),
            ({ #"{"token":"ab","payload":{"aps":{"alert":"x"},"custom":\#($0)}}"# }, "/payload/custom", custom),
            ({ #"{"message":{"token":"t","notification":{"title":"T"},"apns":{"payload":{"aps":{},"custom":\#($0)}}}}"# },
             "/message/apns/payload/custom", custom),
            ({ #"{"app_id":"A","contents":{"en":"x"},"data":{"v":\#($0)}}"# }, "/data/v",
             { Self.value(at: "/custom/a/v", in: $0) }),
            ({ #"{"request":{"application":"A","auth":"S","notifications":[{"content":"x","data":{"v":\#($0)}}]}}"# },
             "/request/notifications/0/data/v",
             { payload in
                 guard let text = Self.value(at: "/u", in: payload) as? String else { return nil }
                 return Self.value(at: "/v", in: try? JSONSerialization.jsonObject(with: Data(text.utf8)))
             }),
        ]
        var input = "", expected: [(name: String, value: Any)] = []
        for document in documents {
            // Line breaks in a valid document are white space (a string cannot hold one raw): one line per job.
            let text = String(decoding: document.bytes, as: UTF8.self)
                .replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\r", with: " ")
            let value = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
            for shape in shapes {
                input += shape.wrap(text) + "\n"
                expected.append((document.name, value))
            }
        }
        let output = try CommandRunner.run(["process", "--cache-dir", try makeTemporaryDirectory("every-value").path],
                                           input: input)
        XCTAssertEqual(output.status, 0, output.standardError)
        XCTAssertEqual(output.lines.count, expected.count)
        /// Foundation's own canonical writing of a value: equal for two readings of the same JSON.
        func canonical(_ value: Any?) throws -> String {
            guard let value else { return "absent" }
            return String(decoding: try JSONSerialization.data(withJSONObject: [value], options: [.sortedKeys]), as: UTF8.self)
        }
        for (index, (line, author)) in zip(output.lines, expected).enumerated() {
            let shape = shapes[index % shapes.count]
            let result = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], line)
            XCTAssertEqual(result["status"] as? String, "passthrough", "\(author.name): \(line)")
            XCTAssertEqual(try canonical(Self.value(at: shape.request, in: result["request"])), try canonical(author.value),
                           "\(author.name), request: \(line)")
            XCTAssertEqual(try canonical(shape.device(Self.value(at: "/apns/payload", in: result))), try canonical(author.value),
                           "\(author.name), device payload: \(line)")
        }
    }

    /// Numbers past any binary float's range or precision (JSONTestSuite's `i_number_` documents, which RichPush
    /// accepts: docs/diagnostic-codes.md, "JSON input") reach the request and the device payload as their text.
    func testNumbersOfAnySizeReachTheRequestAndTheDeviceAsTheirText() throws {
        let numbers = try JSONTestSuite.documents("i_number_").map { String(decoding: $0.bytes, as: UTF8.self) }
        XCTAssertEqual(numbers.count, 10)
        let input = numbers.map { #"{"aps":{"alert":"x"},"custom":\#($0)}"# + "\n" }.joined()
        let output = try CommandRunner.run(["process", "--cache-dir", try makeTemporaryDirectory("numbers").path], input: input)
        XCTAssertEqual(output.status, 0, output.standardError)
        XCTAssertEqual(output.lines.count, numbers.count)
        for (line, number) in zip(output.lines, numbers) {
            XCTAssertEqual(Self.occurrences(of: #""custom":\#(number)"#, in: line), 2, "request and device payload: \(line)")
        }
    }

    /// Two attachments whose ids differ only in Unicode normalization are two references: each is rendered and
    /// each id gets its own cached URL, in the request and in the device payload (one used to be skipped, its raw
    /// URL sent unchecked).
    func testAttachmentsUnderKeysOfDifferentBytesAreEachRendered() throws {
        let directory = try makeTemporaryDirectory("key-bytes-media")
        let document = #"{"app_id":"A","contents":{"en":"x"},"ios_attachments":{"caf\u00e9":"https://media.example.com/story1.jpg","cafe\u0301":"https://media.example.com/story2.jpg"}}"#
        let output = try CommandRunner.run(
            ["process", "--local-origin", "https://media.example.com/=" + fixture("media").path,
             "--cache-dir", directory.appendingPathComponent("cache").path, "--public-base-url", "https://cdn.example.test/rp"],
            input: document + "\n")
        XCTAssertEqual(output.status, 0, output.standardError)
        let line = try XCTUnwrap(output.lines.first)
        let result = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        XCTAssertEqual(result["status"] as? String, "enriched", line)
        let media = try XCTUnwrap(result["media"] as? [[String: Any]])
        XCTAssertEqual(media.map { Array(($0["pointer"] as? String ?? "").utf8) },
                       [Array("/att/caf\u{E9}".utf8), Array("/att/cafe\u{301}".utf8)], line)
        XCTAssertEqual(media.map { $0["status"] as? String }, ["rendered", "rendered"], line)
        let urls = media.compactMap { $0["cached_url"] as? String }
        XCTAssertEqual(Set(urls).count, 2, "two images, two cached objects: \(line)")
        // Each id holds its own image's URL, by its own bytes, in both places.
        for (key, url) in zip(["caf\u{E9}", "cafe\u{301}"], urls) {
            XCTAssertEqual(Self.occurrences(of: "\"\(key)\":\"\(url)\"", in: line), 2,
                           "\(key): the request and the device payload: \(line)")
        }
        for source in ["story1.jpg", "story2.jpg"] {
            XCTAssertEqual(Self.occurrences(of: source, in: line), 1, "\(source) only as its media's source: \(line)")
        }
    }

    /// Two source URLs that differ only in Unicode normalization name two files, so two images: in one job and across
    /// jobs (the cache-key memo is shared), each renders its own, and neither is answered with the other's.
    func testSourcesOfDifferentBytesAreTwoImages() throws {
        let directory = try makeTemporaryDirectory("source-bytes")
        let media = directory.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        try FileManager.default.copyItem(at: fixture("media/story1.jpg"), to: media.appendingPathComponent(composed + ".jpg"))
        try FileManager.default.copyItem(at: fixture("media/story2.jpg"), to: media.appendingPathComponent(decomposed + ".jpg"))
        let both = #"{"aps":{"alert":"x"},"att":{"a":"https://media.example.com/caf\u00e9.jpg","b":"https://media.example.com/cafe\u0301.jpg"}}"#
        let second = #"{"aps":{"alert":"x"},"attachment":"https://media.example.com/cafe\u0301.jpg"}"#
        let first = #"{"aps":{"alert":"x"},"attachment":"https://media.example.com/caf\u00e9.jpg"}"#
        let output = try CommandRunner.run(
            ["process", "--local-origin", "https://media.example.com/=" + media.path, "--concurrency", "1",
             "--cache-dir", directory.appendingPathComponent("cache").path],
            input: [first, second, both].joined(separator: "\n") + "\n")
        XCTAssertEqual(output.status, 0, output.standardError)
        let mediaLists = try output.lines.map { line in
            try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["media"] as? [[String: Any]], line)
        }
        XCTAssertEqual(mediaLists.map(\.count), [1, 1, 2])
        let sources = mediaLists.flatMap { $0 }.map { Array(($0["source"] as? String ?? "").utf8) }
        XCTAssertEqual(sources, [composed, decomposed, composed, decomposed].map { Array("https://media.example.com/\($0).jpg".utf8) })
        let cached = mediaLists.flatMap { $0 }.map { $0["cached_url"] as? String }
        XCTAssertEqual(mediaLists.flatMap { $0 }.map { $0["status"] as? String }, ["rendered", "rendered", "cached", "cached"], "\(output.lines)")
        XCTAssertNotEqual(cached[0], cached[1], "two files, two images")
        XCTAssertEqual(cached[2], cached[0])
        XCTAssertEqual(cached[3], cached[1])
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

    /// Issue 36 item 3: credentials outside their documented place, one marker each.
    static let plantedCredentials: [(String, String)] = [
        ("pushwoosh notification auth",
         #"{"request":{"auth":"SECRET_A","notifications":[{"content":"x","auth":"SECRET_PWN","api_private_key":"SECRET_PWK"}]}}"#),
        ("pushwoosh root auth", #"{"auth":"SECRET_ROOT","request":{"notifications":[{"content":"x"}]}}"#),
        ("onesignal keys", #"{"app_id":"A","contents":{"en":"x"},"rest_api_key":"SECRET_OSR","api_key":"SECRET_OSA","Authorization":"Basic SECRET_OSH"}"#),
        ("fcm access token", #"{"access_token":"SECRET_FCM","message":{"token":"t","notification":{"title":"T"},"apns":{"headers":{"authorization":"bearer SECRET_FCMH"}}}}"#),
        ("envelope auth", #"{"token":"ab","auth":"SECRET_ENV","tenant":{"access_token":"SECRET_NESTED"},"payload":{"aps":{"alert":"x"}}}"#),
        ("pushfa key", #"{"title":"T","body":"B","api_private_key":"SECRET_PF"}"#),
    ]

    func testCredentialsOutsideTheirDocumentedPlaceReachOnlyTheRequest() throws {
        let directory = try makeTemporaryDirectory("credentials")
        let documents = Self.plantedCredentials.map(\.1)
        let processed = try CommandRunner.run(["process", "--cache-dir", directory.appendingPathComponent("cache").path], input: documents.joined(separator: "\n") + "\n")
        XCTAssertEqual(processed.lines.count, documents.count, processed.standardError)
        for ((name, document), line) in zip(Self.plantedCredentials, processed.lines) {
            var result = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], name)
            let request = try JSONSerialization.data(withJSONObject: try XCTUnwrap(result["request"], name))
            for marker in Self.markers(in: document) {
                XCTAssertTrue(String(decoding: request, as: UTF8.self).contains(marker), "\(name): the request keeps \(marker)")
            }
            result["request"] = nil
            let rest = String(decoding: try JSONSerialization.data(withJSONObject: result), as: UTF8.self)
            XCTAssertFalse(rest.contains("SECRET_"), "\(name): a credential outside request: \(rest)")
        }
        XCTAssertFalse(processed.standardError.contains("SECRET_"), processed.standardError)

        for (index, (name, document)) in Self.plantedCredentials.enumerated() {
            let file = directory.appendingPathComponent("\(index).json")
            try Data(document.utf8).write(to: file)
            let html = directory.appendingPathComponent("\(index).html")
            for arguments in [["--format", "json"], ["--format", "text"], ["--html", html.path]] {
                let output = try CommandRunner.run(["validate", "--no-fetch"] + arguments + [file.path])
                XCTAssertFalse(output.standardOutput.contains("SECRET_") || output.standardError.contains("SECRET_"),
                               "\(name) \(arguments): \(output.standardOutput)")
            }
            XCTAssertFalse(try String(contentsOf: html, encoding: .utf8).contains("SECRET_"), "\(name): the --html page")
        }
    }

    /// Issue 36 item 3: the JSON report's `media[].source` is redacted as the text report's is.
    func testJSONReportRedactsMediaSources() throws {
        let file = try makeTemporaryDirectory("redaction").appendingPathComponent("push.json")
        try Data(#"{"aps":{"alert":"x"},"image_url":"https://user:PASSWORD@media.example.com/a.jpg?sig=QUERY#FRAGMENT"}"#.utf8).write(to: file)
        let output = try CommandRunner.run(["validate", "--no-fetch", "--format", "json", file.path])
        XCTAssertTrue(output.standardOutput.contains("https://media.example.com/a.jpg"), output.standardOutput)
        for secret in ["PASSWORD", "QUERY", "FRAGMENT", "user:"] {
            XCTAssertFalse(output.standardOutput.contains(secret), "\(secret): \(output.standardOutput)")
        }
    }

    private static func markers(in document: String) -> [String] {
        document.split(separator: "\"").filter { $0.hasPrefix("SECRET_") }.map(String.init)
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
