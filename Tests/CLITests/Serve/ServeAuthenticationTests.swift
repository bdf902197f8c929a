import Foundation
import Glibc
import TestSupport
import XCTest

/// `serve --auth-token-file`, `--insecure-no-auth`, `--metrics-listen`, and the request metrics and refusal log.
extension ServeCommandTests {
    private func writeToken(_ contents: String) throws -> String {
        let folder = try TemporaryDirectory.make("token")
        addTeardownBlock { TemporaryDirectory.remove(folder) }
        let file = folder.appendingPathComponent("token")
        try Data(contents.utf8).write(to: file)
        return file.path
    }

    /// Stops the server (SIGTERM) and returns its log.
    private func stopAndReadLog() -> String {
        kill(server.processIdentifier, SIGTERM)
        server.waitUntilExit()
        return String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    func testTheTokenGuardsV1AndThePageHealthAndMetricsStayOpen() async throws {
        try start(["--auth-token-file", try writeToken("  s3cret-token\n"), "--max-body", "1KB"])
        let job = Data(#"{"id":"t1","payload":{"aps":{"alert":"x"}}}"#.utf8)
        let missing = try curl("/v1/enrich", method: "POST", body: job, contentType: "application/json")
        XCTAssertEqual(missing.status, 401, missing.body)
        XCTAssertEqual(missing.headers["www-authenticate"]?.hasPrefix("Bearer"), true, "\(missing.headers)")
        XCTAssertEqual((missing.json?["error"] as? [String: Any])?["code"] as? String, "unauthorized")
        for wrong in ["Bearer s3cret", "Bearer s3cret-token2", "Basic s3cret-token", "s3cret-token"] {
            let reply = try curl("/v1/enrich", method: "POST", body: job, contentType: "application/json",
                                 extra: ["-H", "Authorization: \(wrong)"])
            XCTAssertEqual(reply.status, 401, wrong)
        }
        let authorized = ["-H", "Authorization: Bearer s3cret-token"]
        let enriched = try curl("/v1/enrich", method: "POST", body: job, contentType: "application/json", extra: authorized)
        XCTAssertEqual(enriched.status, 200, enriched.body)
        XCTAssertEqual(enriched.json?["id"] as? String, "t1")
        XCTAssertEqual(try curl("/v1/validate", method: "POST", body: job, contentType: "application/json").status, 401)
        XCTAssertEqual(try curl("/v1/preview", method: "POST", body: job, contentType: "application/json").status, 401)
        let previewed = try curl("/v1/preview", method: "POST", body: job, contentType: "application/json", extra: authorized)
        XCTAssertEqual(previewed.status, 200, previewed.body)
        // Refused by the server before authentication, and by the routes after it: each counted under its route.
        XCTAssertEqual(try curl("/v1/enrich", method: "POST", body: Data(count: 4096), contentType: "application/json").status, 413)
        XCTAssertEqual(try curl("/v1/enrich", method: "POST", body: job, contentType: "text/plain", extra: authorized).status, 415)
        XCTAssertEqual(try curl("/no/such/path").status, 404)

        // The page (which sends the token its field holds), health and metrics need no token.
        let page = try curl("/")
        XCTAssertEqual(page.status, 200)
        XCTAssertTrue(page.body.contains(#"id="token""#), "the page has a field for the token")
        XCTAssertEqual(try curl("/healthz").status, 200)
        XCTAssertEqual(try curl("/readyz").status, 200)
        let expected = [
            #"richpush_http_requests_total{route="/v1/enrich",code="401"} 5"#,
            #"richpush_http_requests_total{route="/v1/enrich",code="200"} 1"#,
            #"richpush_http_requests_total{route="/v1/enrich",code="413"} 1"#,
            #"richpush_http_requests_total{route="/v1/enrich",code="415"} 1"#,
            #"richpush_http_requests_total{route="/v1/validate",code="401"} 1"#,
            #"richpush_http_requests_total{route="/v1/preview",code="401"} 1"#,
            #"richpush_http_requests_total{route="/v1/preview",code="200"} 1"#,
            #"richpush_http_requests_total{route="other",code="404"} 1"#,
            #"richpush_http_requests_total{route="/",code="200"} 1"#,
            #"richpush_http_request_duration_seconds_count{route="/v1/enrich"} 8"#,
        ]
        var metrics = ""
        try await waitUntil(timeout: .seconds(10), "the request counters") {
            metrics = try curl("/metrics").body
            return expected.allSatisfy(metrics.contains)
        }
        XCTAssertTrue(metrics.contains(#"richpush_http_request_duration_seconds_bucket{route="/v1/enrich",le="+Inf"} 8"#), metrics)

        // A burst of refusals: one curl sends 30 on one connection, which takes far less than the seconds that
        // would let a line a second through for each; the lines that are written say how many were held back.
        let burst = try curl("/v1/validate", method: "POST", body: job, contentType: "application/json",
                             extra: ["--parallel-max", "1"] + (1..<30).flatMap { _ in ["--next", "-s", "-o", "/dev/null", "-X", "POST", "-H", "Content-Type: application/json", "--data", "{}", "http://127.0.0.1:\(port)/v1/validate"] })
        XCTAssertEqual(burst.status, 401)
        try await waitUntil(timeout: .seconds(10), "the burst counted") {
            try curl("/metrics").body.contains(#"richpush_http_requests_total{route="/v1/validate",code="401"} 31"#)
        }
        let refusals = stopAndReadLog().split(separator: "\n").compactMap { line -> [String: Any]? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["event"] as? String == "request_refused" else { return nil }
            return object
        }
        let unauthorized = refusals.filter { $0["status"] as? Int == 401 }
        XCTAssertGreaterThanOrEqual(unauthorized.count, 1, "refusals are logged")
        XCTAssertLessThan(unauthorized.count, 15, "but not one line each: \(unauthorized.count) lines for 36 refusals")
        XCTAssertEqual(unauthorized.first?["route"] as? String, "/v1/enrich")
        XCTAssertEqual(unauthorized.first?["suppressed"] as? Int, 0)
        XCTAssertEqual(unauthorized.first?["level"] as? String, "warning")
        XCTAssertTrue(refusals.contains { $0["status"] as? Int == 413 }, "each status has its own budget")
    }

    func testNonLoopbackListenNeedsATokenOrInsecureNoAuth() throws {
        for listen in ["0.0.0.0:8080", "[::]:8080", "192.0.2.1:8080"] {
            let refused = try CommandRunner.run(["serve", "--public-base-url", "https://cdn.example.com/richpush", "--listen", listen, "--max-in-flight", "0"])
            XCTAssertEqual(refused.status, 2, refused.standardError)
            XCTAssertTrue(refused.standardError.contains("--auth-token-file"), refused.standardError)
            XCTAssertTrue(refused.standardError.contains("--insecure-no-auth"), refused.standardError)
        }
        // Past the check (a later option is what fails), without binding anything: loopback needs nothing, other
        // addresses a token or the explicit flag.
        let token = try writeToken("s3cret\n")
        for arguments in [["--listen", "127.0.0.2:1"], ["--listen", "[::1]:1"], ["--listen", "0.0.0.0:1", "--insecure-no-auth"],
                          ["--listen", "0.0.0.0:1", "--auth-token-file", token]] {
            let output = try CommandRunner.run(["serve", "--public-base-url", "https://cdn.example.com/richpush"] + arguments + ["--max-in-flight", "0"])
            XCTAssertEqual(output.status, 2, output.standardError)
            XCTAssertTrue(output.standardError.contains("--max-in-flight"), "\(arguments): \(output.standardError)")
        }
    }

    func testAnEmptyOrUnreadableTokenFileIsAUsageError() throws {
        // A folder stands for an unreadable file (tests may run as root, who reads any file). Each run has a bad
        // --max-in-flight too, so that a token file wrongly accepted fails the run instead of starting a server.
        let folder = URL(fileURLWithPath: try writeToken("s3cret")).deletingLastPathComponent().path
        for path in ["/nonexistent/token", try writeToken(" \n\n"), try writeToken("two words\n"), folder] {
            let output = try CommandRunner.run(["serve", "--public-base-url", "https://cdn.example.com/richpush", "--auth-token-file", path, "--max-in-flight", "0"])
            XCTAssertEqual(output.status, 2, "\(path): \(output.standardError)")
            XCTAssertTrue(output.standardError.contains("--auth-token-file"), output.standardError)
        }
        let badMetrics = try CommandRunner.run(["serve", "--public-base-url", "https://cdn.example.com/richpush", "--metrics-listen", "nowhere", "--max-in-flight", "0"])
        XCTAssertEqual(badMetrics.status, 2, badMetrics.standardError)
        XCTAssertTrue(badMetrics.standardError.contains("--metrics-listen"), badMetrics.standardError)
    }

    func testMetricsListenServesMetricsAndHealthAndTheMainPortNoLongerServesMetrics() throws {
        let metricsPort = try LoopbackPort.free()
        try start(["--metrics-listen", "127.0.0.1:\(metricsPort)"])
        try LoopbackPort.waitUntilListening(on: metricsPort, timeout: .seconds(10))
        XCTAssertEqual(try curl("/metrics").status, 404, "not on the main port")
        XCTAssertEqual(try curl("/healthz").status, 200)
        let job = Data(#"{"id":"m1","payload":{"aps":{"alert":"x"}}}"#.utf8)
        XCTAssertEqual(try curl("/v1/enrich", method: "POST", body: job, contentType: "application/json").status, 200)

        let metrics = try Self.curl(port: metricsPort, "/metrics")
        XCTAssertEqual(metrics.status, 200)
        XCTAssertTrue(metrics.body.contains(#"richpush_jobs_total{status="passthrough"} 1"#), metrics.body)
        XCTAssertTrue(metrics.body.contains(#"richpush_http_requests_total{route="/metrics",code="404"} 1"#), metrics.body)
        XCTAssertEqual(try Self.curl(port: metricsPort, "/healthz").status, 200)
        XCTAssertEqual(try Self.curl(port: metricsPort, "/readyz").status, 200)
        XCTAssertEqual(try Self.curl(port: metricsPort, "/v1/enrich", method: "POST", body: job, contentType: "application/json").status, 404)
        XCTAssertEqual(try Self.curl(port: metricsPort, "/").status, 404)
    }

    /// Issue 36 item 5: a probe listener others can reach needs the token for /metrics, and health stays open.
    func testAPublicMetricsListenerNeedsTheTokenForMetrics() throws {
        let metricsPort = try LoopbackPort.free()
        let refused = try CommandRunner.run(["serve", "--public-base-url", "https://cdn.example.com/richpush",
                                             "--listen", "127.0.0.1:0", "--metrics-listen", "0.0.0.0:\(metricsPort)"])
        XCTAssertEqual(refused.status, 2, refused.standardError)
        XCTAssertTrue(refused.standardError.contains("--metrics-listen") && refused.standardError.contains("--auth-token-file"),
                      refused.standardError)

        try start(["--metrics-listen", "0.0.0.0:\(metricsPort)", "--auth-token-file", try writeToken("probe-token")])
        try LoopbackPort.waitUntilListening(on: metricsPort, timeout: .seconds(10))
        XCTAssertEqual(try Self.curl(port: metricsPort, "/metrics").status, 401)
        XCTAssertEqual(try Self.curl(port: metricsPort, "/metrics", extra: ["-H", "Authorization: Bearer wrong"]).status, 401)
        let scraped = try Self.curl(port: metricsPort, "/metrics", extra: ["-H", "Authorization: Bearer probe-token"])
        XCTAssertEqual(scraped.status, 200)
        XCTAssertTrue(scraped.body.contains("richpush_jobs_total"), scraped.body)
        XCTAssertEqual(try Self.curl(port: metricsPort, "/healthz").status, 200)
        XCTAssertEqual(try Self.curl(port: metricsPort, "/readyz").status, 200)
    }

    /// Issue 36 item 5: 200 connections that never finish their headers, from 20 client addresses, do not keep the
    /// probe listener from answering /healthz (before, 4 addresses filled it for the 10 s header timeout).
    func testSlowClientsDoNotHoldTheProbeListener() throws {
        let metricsPort = try LoopbackPort.free()
        try start(["--metrics-listen", "127.0.0.1:\(metricsPort)"])
        try LoopbackPort.waitUntilListening(on: metricsPort, timeout: .seconds(10))
        var sockets: [Int32] = []
        defer { for socket in sockets { close(socket) } }
        for index in 0..<200 {
            let socket = try XCTUnwrap(Self.slowConnection(from: "127.0.0.\(2 + index % 20)", to: metricsPort))
            sockets.append(socket)
        }
        // The probe comes from an address of its own, as an orchestrator's does; curl gives up after 3 s.
        let probe = try Self.curl(port: metricsPort, "/healthz", extra: ["--max-time", "3"])
        XCTAssertEqual(probe.status, 200, "the probe was held: \(probe)")
    }

    /// A connection from `source` that sends the start of a request and then nothing; nil if it could not connect.
    private static func slowConnection(from source: String, to port: UInt16) -> Int32? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &local.sin_addr)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        let connected = withUnsafePointer(to: &local) { localPointer in
            localPointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } == 0
        } && withUnsafePointer(to: &remote) { remotePointer in
            remotePointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } == 0
        }
        guard connected else {
            close(descriptor)
            return nil
        }
        _ = "GET /healthz HTTP/1.1\r\nHost: x\r\n".withCString { send(descriptor, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        return descriptor
    }
}
