import Foundation
import Synchronization
import TestSupport
import XCTest
import RichPushCore
@testable import RichPushHTTP

/// What `HTTPServer` tells its observer: every answered request with its status, the server's own refusals included.
final class HTTPServerObserverTests: XCTestCase {
    func testEveryAnswerIsReportedWithItsStatusRefusalsIncluded() async throws {
        let outcomes = Mutex<[HTTPRequestOutcome]>([])
        let server = try HTTPServer(
            configuration: .init(address: "127.0.0.1", port: 0, threads: 1, maximumBodyBytes: 16),
            observer: { outcome in outcomes.withLock { $0.append(outcome) } }
        ) { request in
            HTTPResponse(status: request.path == "/missing" ? 404 : 200, contentType: "text/plain", body: Data("ok".utf8))
        }
        let client = try KeepAliveClient(port: server.port)
        XCTAssertEqual(try client.send("GET", "/ok").status, 200)
        XCTAssertEqual(try client.send("POST", "/missing", body: "{}").status, 404)
        // Over the 16-byte limit: refused by the server before any handler runs, and reported all the same.
        XCTAssertEqual(try KeepAliveClient(port: server.port).send("POST", "/big", body: String(repeating: "x", count: 64)).status, 413)
        // libmicrohttpd completes a request just after sending its last byte, so the report may trail the answer.
        try await waitUntil(timeout: .seconds(5), "three outcomes") { outcomes.withLock { $0.count } == 3 }
        let seen = outcomes.withLock { $0 }.sorted { $0.path < $1.path }
        XCTAssertEqual(seen.map(\.path), ["/big", "/missing", "/ok"])
        XCTAssertEqual(seen.map(\.status), [413, 404, 200])
        XCTAssertEqual(seen.map(\.method), ["POST", "POST", "GET"])
        XCTAssertTrue(seen.allSatisfy { $0.duration >= .zero && $0.duration < .seconds(5) })
    }

    func testRequestMetricsCountByRouteAndStatusWithADurationHistogramPerRoute() {
        let metrics = HTTPRequestMetrics()
        metrics.record(route: "/v1/enrich", status: 401, duration: .milliseconds(1))
        metrics.record(route: "/v1/enrich", status: 401, duration: .milliseconds(2))
        metrics.record(route: "/v1/enrich", status: 200, duration: .milliseconds(300))
        metrics.record(route: "/healthz", status: 200, duration: .microseconds(50))
        XCTAssertEqual(metrics.count(route: "/v1/enrich", status: 401), 2)
        let text = metrics.prometheusText()
        XCTAssertTrue(text.contains("# TYPE richpush_http_requests_total counter\n"), text)
        XCTAssertTrue(text.contains(#"richpush_http_requests_total{route="/v1/enrich",code="401"} 2"#), text)
        XCTAssertTrue(text.contains(#"richpush_http_requests_total{route="/v1/enrich",code="200"} 1"#), text)
        XCTAssertTrue(text.contains(#"richpush_http_requests_total{route="/healthz",code="200"} 1"#), text)
        XCTAssertTrue(text.contains("# TYPE richpush_http_request_duration_seconds histogram\n"), text)
        XCTAssertTrue(text.contains(#"richpush_http_request_duration_seconds_bucket{route="/v1/enrich",le="0.0025"} 2"#), text)
        XCTAssertTrue(text.contains(#"richpush_http_request_duration_seconds_bucket{route="/v1/enrich",le="+Inf"} 3"#), text)
        XCTAssertTrue(text.contains(#"richpush_http_request_duration_seconds_count{route="/v1/enrich"} 3"#), text)
        XCTAssertTrue(text.contains(#"richpush_http_request_duration_seconds_bucket{route="/healthz",le="0.0001"} 1"#), text)
    }
}

final class BearerTokenTests: XCTestCase {
    func testOnlyTheExactTokenAfterBearerIsAdmitted() throws {
        let token = try XCTUnwrap(BearerToken("s3cret-Token_1"))
        XCTAssertTrue(token.admits(authorization: "Bearer s3cret-Token_1"))
        XCTAssertTrue(token.admits(authorization: "bearer s3cret-Token_1"), "the scheme name is case-insensitive")
        XCTAssertTrue(token.admits(authorization: "Bearer  s3cret-Token_1 "))
        for wrong in [nil, "", "Bearer", "Bearer ", "s3cret-Token_1", "Basic s3cret-Token_1", "Bearer s3cret-token_1",
                      "Bearer s3cret-Token_", "Bearer s3cret-Token_12", "Bearer s3cret-Token_1 extra"] {
            XCTAssertFalse(token.admits(authorization: wrong), String(describing: wrong))
        }
    }

    func testATokenMustBeOneWordOfVisibleASCII() {
        XCTAssertNil(BearerToken(""))
        XCTAssertNil(BearerToken("two words"))
        XCTAssertNil(BearerToken("line\nbreak"))
        XCTAssertNil(BearerToken("caf\u{E9}"))
        XCTAssertNotNil(BearerToken("a"))
    }
}
