import Foundation
import Glibc
import Synchronization
import TestSupport
import XCTest

/// `richpush serve` through the binary, with curl as the client, on a loopback port.
final class ServeCommandTests: XCTestCase {
    var server: Process!
    var port: UInt16 = 0
    var directory: URL!
    var errors: Pipe!
    let origin = "https://media.example.com/=" + packageRoot.appendingPathComponent("Fixtures/media").path

    func start(_ extra: [String] = []) throws {
        directory = try TemporaryDirectory.make("serve")
        port = try LoopbackPort.free()
        server = CommandRunner.makeProcess(
            ["serve", "--listen", "127.0.0.1:\(port)", "--cache-dir", directory.appendingPathComponent("cache").path,
             "--local-origin", origin, "--public-base-url", "https://cdn.example.com/richpush"] + extra,
            environment: [:], workingDirectory: nil)
        errors = Pipe()
        server.standardError = errors
        server.standardOutput = FileHandle.nullDevice
        try server.run()
        try LoopbackPort.waitUntilListening(on: port, timeout: .seconds(20))
    }

    override func tearDownWithError() throws {
        if let server, server.isRunning {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        // After the server is gone, so it cannot write into the folder while it is removed.
        if let directory { TemporaryDirectory.remove(directory) }
    }

    struct Reply {
        var status: Int
        var headers: [String: String]
        var body: String
        var json: [String: Any]? { try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] }
    }

    func curl(_ path: String, method: String = "GET", body: Data? = nil, contentType: String? = nil,
                      extra: [String] = []) throws -> Reply {
        try Self.curl(port: port, path, method: method, body: body, contentType: contentType, extra: extra)
    }

    /// One request with curl, which prints the response headers (`-D -`) before the body.
    static func curl(port: UInt16, _ path: String, method: String = "GET", body: Data? = nil,
                             contentType: String? = nil, extra: [String] = []) throws -> Reply {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try TestTool.curl.path())
        var arguments = ["-s", "-D", "-", "-X", method, "--max-time", "30"] + extra
        if let contentType { arguments += ["-H", "Content-Type: \(contentType)"] }
        if body != nil { arguments += ["--data-binary", "@-"] }
        process.arguments = arguments + ["http://127.0.0.1:\(port)\(path)"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        if let body { input.fileHandleForWriting.write(body) }
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        // The last header block (after a 100 Continue) is the answer.
        let blocks = text.components(separatedBy: "\r\n\r\n")
        var headerIndex = 0
        while headerIndex + 1 < blocks.count, blocks[headerIndex].hasPrefix("HTTP/1.1 100") { headerIndex += 1 }
        let headerLines = blocks[headerIndex].components(separatedBy: "\r\n")
        let status = Int(headerLines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var headers: [String: String] = [:]
        for line in headerLines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Reply(status: status, headers: headers, body: blocks[(headerIndex + 1)...].joined(separator: "\r\n\r\n"))
    }

    func testEnrichValidateHealthAndErrors() throws {
        try start()
        let health = try curl("/healthz")
        XCTAssertEqual(health.status, 200)
        XCTAssertEqual(try curl("/readyz").status, 200)

        // One document: the same result JSON as a `process` line.
        let job = #"{"id":"s1","payload":{"aps":{"alert":{"title":"T","body":"B"}},"image_url":"https://media.example.com/hero.jpg"}}"#
        let enriched = try curl("/v1/enrich", method: "POST", body: Data(job.utf8), contentType: "application/json")
        XCTAssertEqual(enriched.status, 200, enriched.body)
        XCTAssertEqual(enriched.json?["id"] as? String, "s1")
        XCTAssertEqual(enriched.json?["status"] as? String, "enriched")
        let processed = try CommandRunner.run(
            ["process", "--cache-dir", directory.appendingPathComponent("cache").path, "--local-origin", origin], input: job + "\n")
        let line = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(processed.lines[0].utf8)) as? [String: Any])
        XCTAssertEqual(
            (enriched.json?["apns"] as? NSDictionary), (line["apns"] as? NSDictionary), "serve and process give the same APNs request")
        XCTAssertEqual(
            (enriched.json?["request"] as? NSDictionary), (line["request"] as? NSDictionary), "and the same request for the sender")
        XCTAssertEqual((enriched.json?["request"] as? [String: Any])?["id"] as? String, "s1")

        // A media failure is still a 200, with the fallback status.
        let broken = #"{"aps":{"alert":"x"},"image_url":"https://media.example.com/broken.jpg"}"#
        let fallback = try curl("/v1/enrich", method: "POST", body: Data(broken.utf8), contentType: "application/json")
        XCTAssertEqual(fallback.status, 200)
        XCTAssertEqual(fallback.json?["status"] as? String, "fallback")

        // A bad body is a 400 carrying the diagnostic.
        let bad = try curl("/v1/enrich", method: "POST", body: Data("{not json".utf8), contentType: "application/json")
        XCTAssertEqual(bad.status, 400)
        let diagnostics = try XCTUnwrap(bad.json?["diagnostics"] as? [[String: Any]])
        XCTAssertEqual(diagnostics.first?["code"] as? String, "invalid_json")

        // NDJSON: one line per document, in order, malformed ones included.
        let lines = #"{"id":"a","payload":{"aps":{"alert":"a"}}}"# + "\n{oops\n" + #"{"id":"c","payload":{"aps":{"content-available":1}}}"# + "\n"
        let streamed = try curl("/v1/enrich", method: "POST", body: Data(lines.utf8), contentType: "application/x-ndjson")
        XCTAssertEqual(streamed.status, 200)
        XCTAssertEqual(streamed.headers["content-type"], "application/x-ndjson")
        let results = streamed.body.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        XCTAssertEqual(results.map { $0["status"] as? String }, ["passthrough", "rejected", "passthrough"])
        XCTAssertEqual(results.map { $0["line"] as? Int }, [1, 2, 3])

        let validated = try curl("/v1/validate", method: "POST", body: Data(broken.utf8), contentType: "application/json")
        XCTAssertEqual(validated.status, 200)
        XCTAssertEqual(validated.json?["valid"] as? Bool, false, "a broken image is a finding for an author")
        let reported = (validated.json?["reports"] as? [[String: Any]])?.first?["results"] as? [[String: Any]]
        XCTAssertEqual(reported?.count, 1)
        XCTAssertNil(reported?.first?["request"], "a report never carries the sender's request (its credentials)")

        XCTAssertEqual(try curl("/nowhere").status, 404)
        let wrongMethod = try curl("/v1/enrich")
        XCTAssertEqual(wrongMethod.status, 405)
        XCTAssertEqual(wrongMethod.headers["allow"], "POST")
        let metrics = try curl("/metrics")
        XCTAssertEqual(metrics.status, 200)
        XCTAssertTrue(metrics.body.contains("richpush_jobs_total{status=\"enriched\"} 1"), metrics.body)
        XCTAssertTrue(metrics.body.contains("richpush_jobs_in_flight 0"), metrics.body)
    }

    func testPreviewPageAndEndpoint() throws {
        try start()
        let page = try curl("/")
        XCTAssertEqual(page.status, 200)
        XCTAssertEqual(page.headers["content-type"], "text/html; charset=utf-8")
        XCTAssertTrue(page.body.contains(#"<form id="preview-form">"#), page.body)
        XCTAssertTrue(page.body.contains(#"fetch("/v1/preview""#), "the page posts to /v1/preview")
        XCTAssertFalse(page.body.contains("src=\"http"), "the page loads nothing from elsewhere")
        XCTAssertEqual(try curl("/v1/preview").status, 405)

        // A story with a broken page and a signed source: the validate report, the images inlined, no secret.
        let story = #"{"aps":{"alert":{"title":"Autumn","body":"Picks"}},"pw_stories":{"pages":["# +
            #"{"image":"https://media.example.com/story1.jpg?sig=SECRET","title":"Coats","button_title":"Shop"},"# +
            #"{"image":"https://media.example.com/broken.jpg","title":"Boots"},"# +
            #"{"image":"https://media.example.com/story3.jpg","title":"Scarves"}]}}"#
        let preview = try curl("/v1/preview", method: "POST", body: Data(story.utf8), contentType: "application/json")
        XCTAssertEqual(preview.status, 200, preview.body)
        XCTAssertFalse(preview.body.contains("SECRET"), "a signed query string never reaches the page")
        let document = try XCTUnwrap(preview.json)
        XCTAssertEqual(document["valid"] as? Bool, false)
        let result = try XCTUnwrap(((document["reports"] as? [[String: Any]])?.first?["results"] as? [[String: Any]])?.first)
        XCTAssertEqual((result["apns"] as? [String: Any])?["limit"] as? Int, 4096, "the limit the page's meter shows")
        let media = try XCTUnwrap(result["media"] as? [[String: Any]])
        XCTAssertEqual(media.map { $0["status"] as? String }, ["rendered", "failed", "rendered"])
        let images = try XCTUnwrap(document["images"] as? [String: String])
        XCTAssertEqual(Set(images.keys), Set(media.compactMap { $0["cached_url"] as? String }))
        for image in images.values {
            let bytes = try XCTUnwrap(Data(base64Encoded: String(image.dropFirst("data:image/jpeg;base64,".count))))
            XCTAssertEqual(Array(bytes.prefix(2)), [0xFF, 0xD8], "each image is the rendered JPEG")
        }
        let diagnostics = try XCTUnwrap(result["diagnostics"] as? [[String: Any]])
        XCTAssertTrue(diagnostics.contains { $0["code"] as? String == "story_page_dropped" }, "\(diagnostics)")
        // The pages the phone shows, as the server found them: the viewer draws these.
        let shownPages = try XCTUnwrap((result["story"] as? [String: Any])?["pages"] as? [[String: Any]])
        XCTAssertEqual(shownPages.map { $0["title"] as? String }, ["Coats", "Scarves"])
        XCTAssertEqual(shownPages.map { $0["image"] as? String }, media.compactMap { $0["cached_url"] as? String })
        XCTAssertEqual(shownPages.first?["button_title"] as? String, "Shop")
        XCTAssertNil(shownPages.first?["link"], "the page has no link, so the viewer's button names none")
        XCTAssertEqual(document["summary"] as? String, "2 of 3 media fetched and rendered; see the findings for the rest.")

        // A URL list becomes a story with one page per URL.
        let list = "# campaign images\nhttps://media.example.com/story2.jpg\nhttps://media.example.com/hero.jpg\n"
        let listed = try curl("/v1/preview", method: "POST", body: Data(list.utf8), contentType: "text/uri-list")
        XCTAssertEqual(listed.status, 200, listed.body)
        let listedResult = ((listed.json?["reports"] as? [[String: Any]])?.first?["results"] as? [[String: Any]])?.first
        XCTAssertEqual((listedResult?["media"] as? [[String: Any]])?.map { $0["variant"] as? String }, ["story", "story"])
        XCTAssertEqual((listed.json?["images"] as? [String: String])?.count, 2)
        XCTAssertEqual(try curl("/v1/preview", method: "POST", body: Data("# nothing\n".utf8), contentType: "text/uri-list").status, 400)
        // Prose is no URL list: it is previewed as the document it is, which is not JSON (never a one-page story).
        let prose = try curl("/v1/preview", method: "POST", body: Data("hello world".utf8), contentType: "text/uri-list")
        XCTAssertEqual(prose.status, 200, prose.body)
        let proseResult = ((prose.json?["reports"] as? [[String: Any]])?.first?["results"] as? [[String: Any]])?.first
        XCTAssertEqual((proseResult?["screen"] as? [String: Any])?["state"] as? String, "not_json", prose.body)
        XCTAssertTrue(proseResult?["story"] is NSNull, prose.body)
        XCTAssertEqual(prose.json?["summary"] as? String, "Not JSON: nothing would be sent.")

        // NDJSON: a job per line, numbered.
        let lines = #"{"id":"a","payload":{"aps":{"alert":"a"}}}"# + "\n" + #"{"id":"b","payload":{"aps":{"alert":"b"}}}"# + "\n"
        let streamed = try curl("/v1/preview", method: "POST", body: Data(lines.utf8), contentType: "application/x-ndjson")
        let streamedResults = (streamed.json?["reports"] as? [[String: Any]])?.first?["results"] as? [[String: Any]]
        XCTAssertEqual(streamedResults?.map { $0["id"] as? String }, ["a", "b"])
        XCTAssertEqual(streamedResults?.map { $0["line"] as? Int }, [1, 2])
        XCTAssertEqual(try curl("/", method: "HEAD", extra: ["-I"]).status, 200)
    }

    /// A preview answer inlines every rendered image in base64; the issue's 84 KB body answered 189 MB. Lines per
    /// request and image bytes per answer are bounded, and a multi-line body inlines no image.
    func testPreviewAnswersAreBounded() throws {
        try start(["--preview-max-lines", "3", "--preview-inline-images", "60KB"])
        let job = { (id: Int, image: String) in
            #"{"id":"\#(id)","payload":{"aps":{"alert":"a"},"attachment":"https://media.example.com/\#(image)"}}"#
        }
        let tooMany = (0..<4).map { job($0, "hero.jpg") }.joined(separator: "\n")
        let refused = try curl("/v1/preview", method: "POST", body: Data(tooMany.utf8), contentType: "application/x-ndjson")
        XCTAssertEqual(refused.status, 413, refused.body)
        XCTAssertEqual((refused.json?["error"] as? [String: Any])?["code"] as? String, "too_many_lines")
        let urls = (1...4).map { "https://media.example.com/story\(($0 - 1) % 3 + 1).jpg" }.joined(separator: "\n")
        XCTAssertEqual(try curl("/v1/preview", method: "POST", body: Data(urls.utf8), contentType: "text/uri-list").status, 413)

        // Two lines: both rendered and reported, no image inlined.
        let two = [job(1, "hero.jpg"), job(2, "story1.jpg")].joined(separator: "\n")
        let lines = try curl("/v1/preview", method: "POST", body: Data(two.utf8), contentType: "application/x-ndjson")
        XCTAssertEqual(lines.status, 200, lines.body)
        XCTAssertEqual((lines.json?["images"] as? [String: String])?.count, 0)
        XCTAssertEqual(lines.json?["images_omitted"] as? Int, 2)

        // One story of three pages: images inlined up to 60 KB, the rest counted.
        let story = #"{"aps":{"alert":{"title":"T","body":"B"}},"pw_stories":{"pages":["# +
            (1...3).map { #"{"image":"https://media.example.com/story\#($0).jpg","title":"P\#($0)"}"# }.joined(separator: ",") + "]}}"
        let answer = try curl("/v1/preview", method: "POST", body: Data(story.utf8), contentType: "application/json")
        XCTAssertEqual(answer.status, 200, answer.body)
        let images = try XCTUnwrap(answer.json?["images"] as? [String: String])
        let inlined = try images.values.reduce(0) { total, url in
            total + (try XCTUnwrap(Data(base64Encoded: String(url.drop { $0 != "," }.dropFirst())))).count
        }
        let omitted = try XCTUnwrap(answer.json?["images_omitted"] as? Int)
        XCTAssertLessThanOrEqual(inlined, 60 * 1024)
        XCTAssertGreaterThan(omitted, 0, "three rendered story pages do not fit in 60 KB")
        XCTAssertEqual(images.count + omitted, 3)
    }

    func testOversizedBodiesMalformedHTTPAndSlowClients() throws {
        try start(["--max-body", "1KB", "--request-timeout", "1s"])
        let big = Data(repeating: 0x61, count: 4096)
        XCTAssertEqual(try curl("/v1/enrich", method: "POST", body: big).status, 413)
        // Chunked: no length to refuse up front, so it is counted as it arrives.
        let chunked = try curl("/v1/enrich", method: "POST", body: big, extra: ["-H", "Transfer-Encoding: chunked"])
        XCTAssertEqual(chunked.status, 413)

        // Garbage instead of HTTP, and a client that sends half a request and stops: neither hurts the server.
        let garbage = try XCTUnwrap(LoopbackPort.connect(to: port))
        _ = "NOT HTTP AT ALL\r\n\r\n".withCString { write(garbage, $0, strlen($0)) }
        var reply = [UInt8](repeating: 0, count: 256)
        let count = read(garbage, &reply, reply.count)
        close(garbage)
        XCTAssertTrue(String(decoding: reply.prefix(max(0, count)), as: UTF8.self).hasPrefix("HTTP/1.1 400"))

        let slow = try XCTUnwrap(LoopbackPort.connect(to: port))
        _ = "POST /v1/enrich HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{".withCString { write(slow, $0, strlen($0)) }
        XCTAssertEqual(try curl("/healthz").status, 200, "a slow client does not block others")
        // The idle connection is closed by the server after --request-timeout.
        var pollDescriptor = pollfd(fd: slow, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&pollDescriptor, 1, 5000), 1, "the server closes the idle connection")
        XCTAssertEqual(read(slow, &reply, reply.count), 0)
        close(slow)
        XCTAssertTrue(server.isRunning)
    }

    func testSaturationGets503AndSigtermFinishesRequestsInFlight() throws {
        let loopback = try LoopbackOrigin.shared()
        try start(["--max-in-flight", "1", "--allow-network", "127.0.0.1/32", "--deadline", "3s"])
        // The first request waits on a stalled image until its deadline, holding the only slot.
        let stalled = #"{"aps":{"alert":"x"},"image_url":"\#(loopback.url("/stall/serve-saturation"))"}"#
        let port = self.port
        let first = Thread {
            let reply = try? Self.curl(port: port, "/v1/enrich", method: "POST", body: Data(stalled.utf8), contentType: "application/json")
            Self.firstReply.withLock { $0 = reply }
        }
        let stallsBefore = loopback.count("/stall/serve-saturation")
        first.start()
        // It holds the slot once its image fetch stalls at the origin.
        try blockingWaitUntil(timeout: .seconds(10), "the first request's fetch to stall") {
            loopback.count("/stall/serve-saturation") > stallsBefore
        }
        let busy: Reply? = try curl(
            "/v1/enrich", method: "POST", body: Data(#"{"aps":{"alert":"y"}}"#.utf8), contentType: "application/json")
        XCTAssertEqual(busy?.status, 503)
        XCTAssertEqual(busy?.headers["retry-after"], "1")

        // SIGTERM while the stalled request is in flight: it is answered (as a fallback at its deadline), and the
        // server exits 0 without taking new connections.
        kill(server.processIdentifier, SIGTERM)
        server.waitUntilExit()
        XCTAssertEqual(server.terminationStatus, 0)
        try blockingWaitUntil(timeout: .seconds(10), "the first request's answer") { !first.isExecuting }
        for _ in 0..<200 { if Self.firstReply.withLock({ $0 != nil }) { break }; usleep(10_000) }
        let answered = Self.firstReply.withLock { $0 }
        XCTAssertEqual(answered?.status, 200)
        XCTAssertEqual(answered?.json?["status"] as? String, "fallback")
        XCTAssertNil(LoopbackPort.connect(to: port), "no longer listening")
    }

    private static let firstReply = Mutex<Reply?>(nil)

    func testListenAndLimitOptionsAreChecked() throws {
        for arguments in [["--listen", "nowhere"], ["--listen", "example.com:80"], ["--listen", "127.0.0.1:99999"],
                          ["--max-body", "0"], ["--max-in-flight", "0"], ["--max-connections-per-ip", "0"],
                          ["--header-timeout", "500ms"], ["--body-timeout", "0s"]] {
            let output = try CommandRunner.run(["serve", "--public-base-url", "https://cdn.example.com/richpush"] + arguments)
            XCTAssertEqual(output.status, 2, "\(arguments): \(output.standardError)")
        }
    }
}

extension ServeCommandTests.Reply: @unchecked Sendable {}

extension ServeCommandTests {
    /// Issue 36 item 6: over the network, a name that resolves to an internal address and one that does not resolve
    /// get the same answer, so a caller cannot learn which internal names exist; `process` keeps the precise codes.
    func testBlockedAndUnresolvableHostsAnswerAlikeOverTheNetwork() throws {
        try start()
        let hosts = ["localhost", "no-such-host.invalid"]
        var answers: [String] = []
        for host in hosts {
            let document = #"{"aps":{"alert":"x"},"image_url":"https://\#(host)/a.jpg"}"#
            for route in ["/v1/preview", "/v1/validate", "/v1/enrich"] {
                let reply = try curl(route, method: "POST", body: Data(document.utf8), contentType: "application/json")
                XCTAssertEqual(reply.status, 200, "\(route): \(reply.body)")
                XCTAssertTrue(reply.body.contains(#""code":"unreachable_host""#), "\(route) \(host): \(reply.body)")
                XCTAssertFalse(reply.body.contains("blocked_address") || reply.body.contains(#""code":"dns""#), reply.body)
                if route == "/v1/enrich" { answers.append(reply.body.replacingOccurrences(of: host, with: "HOST")) }
            }
        }
        // Timings aside, the two answers are the same document.
        let withoutTimings = answers.map { $0.replacing(/"(ms|media_ms|total_ms)":\d+/, with: "") }
        XCTAssertEqual(withoutTimings[0], withoutTimings[1])

        let processed = try CommandRunner.run(
            ["process", "--cache-dir", directory.appendingPathComponent("process-cache").path],
            input: hosts.map { #"{"aps":{"alert":"x"},"image_url":"https://\#($0)/a.jpg"}"# }.joined(separator: "\n") + "\n")
        XCTAssertEqual(processed.lines.count, 2, processed.standardError)
        XCTAssertTrue(processed.lines[0].contains(#""code":"blocked_address""#), processed.lines[0])
        XCTAssertTrue(processed.lines[1].contains(#""code":"dns""#), processed.lines[1])
    }
}

extension ServeCommandTests {
    /// Issue 39 item 3: `serve` takes `--result` as `process` does.
    func testServeAnswersWithTheChosenResultParts() throws {
        try start(["--result", "request"])
        let job = #"{"id":"r1","payload":{"aps":{"alert":"x"},"image_url":"https://media.example.com/hero.jpg"}}"#
        let reply = try curl("/v1/enrich", method: "POST", body: Data(job.utf8), contentType: "application/json")
        XCTAssertEqual(reply.status, 200, reply.body)
        XCTAssertEqual(reply.json?.keys.sorted(), ["id", "request", "status", "target", "timings"], reply.body)
        let image = SenderRequestCommandTests.value(at: "/payload/image_url", in: reply.json?["request"]) as? String
        XCTAssertTrue(image?.hasPrefix("https://cdn.example.com/richpush/objects/") == true, reply.body)
    }
}
