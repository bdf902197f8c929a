import Foundation
import Glibc
import TestSupport
import XCTest

/// `serve`'s request lifecycle through the binary: work stops when its client leaves, SIGTERM ends a streamed
/// answer with an error line and joins every job, a chunked body is cut off at the limit, and `/v1/*` takes only
/// the media types it reads.
extension ServeCommandTests {
    /// NDJSON of `count` jobs, each with an image that stalls at the loopback origin under `/stall/<prefix>-<n>`.
    private func stalledLines(_ origin: LoopbackOrigin, prefix: String, count: Int, passthroughFirst: Int = 0) -> Data {
        var text = ""
        for index in 0..<passthroughFirst { text += #"{"id":"p\#(index)","payload":{"aps":{"alert":"p"}}}"# + "\n" }
        for index in 0..<count {
            let url = origin.url("/stall/\(prefix)-\(index)")
            text += #"{"id":"s\#(index)","payload":{"aps":{"alert":"x"},"image_url":"\#(url)"}}"# + "\n"
        }
        return Data(text.utf8)
    }

    private func stallCount(_ origin: LoopbackOrigin, prefix: String, count: Int) -> Int {
        (0..<count).reduce(0) { $0 + origin.count("/stall/\(prefix)-\($1)") }
    }

    /// curl streaming an NDJSON POST to `/v1/enrich` with `-N`; the caller reads its standard output as it arrives.
    private func streamingCurl(_ body: Data, extra: [String] = []) throws -> (Process, FileHandle) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try TestTool.curl.path())
        process.arguments = ["-sN", "-X", "POST", "-H", "Content-Type: application/x-ndjson", "--data-binary", "@-"] + extra
            + ["http://127.0.0.1:\(port)/v1/enrich"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(body)
        try input.fileHandleForWriting.close()
        return (process, output.fileHandleForReading)
    }

    func testAClientThatLeavesAStreamedAnswerStopsItsWorkAndFreesItsSlot() throws {
        let loopback = try LoopbackOrigin.shared()
        try start(["--max-in-flight", "1", "--concurrency", "2", "--deadline", "3s", "--allow-network", "127.0.0.1/32"])
        // Twenty jobs that each stall until their deadline; the client gives up after a second.
        let (client, output) = try streamingCurl(stalledLines(loopback, prefix: "abort", count: 20), extra: ["--max-time", "1"])
        _ = output.readDataToEndOfFile()
        client.waitUntilExit()
        XCTAssertEqual(client.terminationStatus, 28, "curl timed out and closed the connection")

        // The work stops: no fetch starts after the client left (two were running), and the slot is free again.
        var started = stallCount(loopback, prefix: "abort", count: 20)
        try blockingWaitUntil(timeout: .seconds(4), "the slot to be free again", interval: .milliseconds(10)) {
            started = stallCount(loopback, prefix: "abort", count: 20)
            return try curl("/v1/enrich", method: "POST", body: Data(#"{"aps":{"alert":"y"}}"#.utf8), contentType: "application/json").status == 200
        }
        XCTAssertEqual(
            try curl("/v1/enrich", method: "POST", body: Data(#"{"aps":{"alert":"y"}}"#.utf8), contentType: "application/json").status,
            200, "the slot is released once the work has stopped")
        // What must not happen, watched for one more deadline (3 s) and a margin: a job that was still being fed
        // would have started its fetch by then. Not a wait for a state: the window is the assertion.
        let watchedUntil = ContinuousClock.now + .seconds(4)
        while ContinuousClock.now < watchedUntil, stallCount(loopback, prefix: "abort", count: 20) == started { usleep(10_000) }
        XCTAssertEqual(stallCount(loopback, prefix: "abort", count: 20), started, "no new fetch after the client left")
        XCTAssertLessThanOrEqual(started, 4, "only the jobs running when the client left were fetched")
    }

    /// SIGTERM while a streamed answer is half written: the answer ends with `{"error":"shutting_down",
    /// "unanswered":N}` after the lines of the jobs in flight, the process exits 0 (no crash on the way out).
    /// `RICHPUSH_SERVE_SIGTERM_RUNS` repeats it (10 by default; 100 for the by-hand run in docs/benchmarks.md).
    func testSigtermDuringAStreamedAnswerEndsItWithAnErrorLineAndExitsCleanly() throws {
        let loopback = try LoopbackOrigin.shared()
        let runs = Int(ProcessInfo.processInfo.environment["RICHPUSH_SERVE_SIGTERM_RUNS"] ?? "") ?? 10
        for run in 0..<runs {
            try start(["--concurrency", "4", "--deadline", "1s", "--allow-network", "127.0.0.1/32"])
            let total = 5 + 40
            let (client, output) = try streamingCurl(stalledLines(loopback, prefix: "term\(run)-\(port)", count: 40, passthroughFirst: 5))
            let answer = OutputLines(output)
            XCTAssertTrue(answer.wait(forCount: 5, timeout: .seconds(60)), "run \(run): the first five lines")
            kill(server.processIdentifier, SIGTERM)
            let lines = try answer.waitForEnd("run \(run): the streamed answer")
            client.waitUntilExit()
            server.waitUntilExit()
            XCTAssertEqual(client.terminationStatus, 0, "run \(run): the chunked answer ends cleanly")
            XCTAssertEqual(server.terminationReason, .exit, "run \(run): no crash while exiting")
            XCTAssertEqual(server.terminationStatus, 0, "run \(run)")
            let last = try XCTUnwrap(lines.last.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
            XCTAssertEqual(last["error"] as? String, "shutting_down", "run \(run): \(lines.suffix(2))")
            let unanswered = try XCTUnwrap(last["unanswered"] as? Int, "run \(run)")
            XCTAssertEqual(lines.count - 1 + unanswered, total, "run \(run): every line is answered or counted")
            XCTAssertGreaterThan(unanswered, 0, "run \(run): the stream was cut short")
            XCTAssertGreaterThanOrEqual(lines.count - 1, 5, "run \(run)")
            TemporaryDirectory.remove(directory)
        }
    }

    func testAnEndlessChunkedBodyGets413AsSoonAsItPassesTheLimit() throws {
        try start(["--max-body", "64KB"])
        let socket = try XCTUnwrap(LoopbackPort.connect(to: port))
        defer { close(socket) }
        let head = "POST /v1/enrich HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        XCTAssertEqual(head.withCString { send(socket, $0, strlen($0), Int32(MSG_NOSIGNAL)) }, head.utf8.count)
        _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
        let chunk = Array("4000\r\n".utf8) + [UInt8](repeating: 0x20, count: 0x4000) + Array("\r\n".utf8)
        var sent = 0
        var offset = 0   // into `chunk`: a partial send continues where it stopped, keeping the chunk framing
        var answer = [UInt8]()
        let deadline = ContinuousClock.now + .seconds(10)
        // Keep sending (as an endless upload would) until the server answers, stops reading, or 10 s pass.
        while ContinuousClock.now < deadline, sent < 512 << 20 {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(socket, &buffer, buffer.count, 0)
            if count > 0 { answer += buffer[..<count] }
            if count == 0 || (count < 0 && errno != EAGAIN) { break }
            if answer.count >= 12 { break }
            let written = chunk[offset...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written > 0 {
                sent += written
                offset = (offset + written) % chunk.count
            } else if errno != EAGAIN {
                break
            } else {
                usleep(1000)
            }
        }
        // The answer is readable even if the server reset the connection behind it.
        _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) & ~O_NONBLOCK)
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        while answer.count < 12 {
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            answer += buffer[..<count]
        }
        XCTAssertTrue(String(decoding: answer, as: UTF8.self).hasPrefix("HTTP/1.1 413"),
                      "413 while the upload goes on (\(sent) bytes sent): \(String(decoding: answer.prefix(80), as: UTF8.self))")
        XCTAssertLessThan(sent, 64 << 20, "the server stopped reading soon after the limit")
        XCTAssertTrue(server.isRunning)
    }

    func testSlowHeadersAndSlowBodiesAreCutOffAtTheirDeadlines() throws {
        try start(["--header-timeout", "1s", "--body-timeout", "2s", "--request-timeout", "30s"])
        // One sends a header line every 200 ms and never ends the headers; one sends a body byte every 200 ms.
        let slowHeaders = try XCTUnwrap(LoopbackPort.connect(to: port))
        let slowBody = try XCTUnwrap(LoopbackPort.connect(to: port))
        defer { close(slowHeaders); close(slowBody) }
        _ = "GET /healthz HTTP/1.1\r\nHost: x\r\n".withCString { send(slowHeaders, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        _ = "POST /v1/enrich HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n".withCString {
            send(slowBody, $0, strlen($0), Int32(MSG_NOSIGNAL))
        }
        let started = ContinuousClock.now
        var closedAfter: [Int32: Duration] = [:]
        while closedAfter.count < 2, ContinuousClock.now - started < .seconds(10) {
            usleep(200_000)   // the slow clients' pace: the scenario, not a wait for a state
            for (socket, line) in [(slowHeaders, "X-Slow: 1\r\n"), (slowBody, " ")] as [(Int32, String)] where closedAfter[socket] == nil {
                _ = line.withCString { send(socket, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
                var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                var scratch = [UInt8](repeating: 0, count: 4096)
                if poll(&descriptor, 1, 0) == 1, recv(socket, &scratch, scratch.count, Int32(MSG_DONTWAIT)) <= 0 {
                    closedAfter[socket] = ContinuousClock.now - started
                } else if descriptor.revents & Int16(POLLIN) != 0, String(decoding: scratch.prefix(12), as: UTF8.self) == "HTTP/1.1 408" {
                    closedAfter[socket] = ContinuousClock.now - started
                }
            }
        }
        XCTAssertLessThan(try XCTUnwrap(closedAfter[slowHeaders]), .seconds(4), "headers are due within --header-timeout")
        XCTAssertLessThan(try XCTUnwrap(closedAfter[slowBody]), .seconds(5), "a body is due within --body-timeout")
        XCTAssertEqual(try curl("/healthz").status, 200)
    }

    func testASecondServeOnTheSameAddressFailsToStart() throws {
        try start()
        let second = try CommandRunner.run(["serve", "--listen", "127.0.0.1:\(port)", "--cache-dir", directory.appendingPathComponent("cache").path,
                                            "--public-base-url", "https://cdn.example.com/richpush"])
        XCTAssertNotEqual(second.status, 0)
        XCTAssertTrue(second.standardError.contains("cannot listen on 127.0.0.1:\(port): Address already in use"), second.standardError)
        XCTAssertEqual(try curl("/healthz").status, 200, "the first one still serves")
    }

    func testV1TakesOnlyJSONNDJSONAndURLListsAndThePageCannotBeFramed() throws {
        try start()
        let job = Data(#"{"aps":{"alert":"a"}}"#.utf8)
        for path in ["/v1/enrich", "/v1/validate", "/v1/preview"] {
            // A form or text/plain POST is what another site's page can send without asking: refused.
            for contentType in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx"] {
                let refused = try curl(path, method: "POST", body: job, contentType: contentType)
                XCTAssertEqual(refused.status, 415, "\(path) \(contentType)")
                XCTAssertEqual((refused.json?["error"] as? [String: Any])?["code"] as? String, "unsupported_media_type", refused.body)
            }
            XCTAssertEqual(try curl(path, method: "POST", body: job, contentType: "Application/JSON; charset=utf-8").status, 200, path)
            let empty = try curl(path, method: "POST", body: Data(), contentType: "application/json")
            XCTAssertEqual(empty.status, 400, path)
            XCTAssertEqual((empty.json?["error"] as? [String: Any])?["code"] as? String, "empty_body", empty.body)
        }
        XCTAssertEqual(try curl("/v1/enrich", method: "POST", body: job).status, 415, "no Content-Type (curl sends a form type)")

        let page = try curl("/")
        XCTAssertEqual(page.status, 200)
        let policy = try XCTUnwrap(page.headers["content-security-policy"])
        XCTAssertTrue(policy.contains("frame-ancestors 'none'"), policy)
        XCTAssertTrue(policy.contains("default-src 'none'"), policy)
        XCTAssertEqual(page.headers["x-frame-options"], "DENY")
    }
}
