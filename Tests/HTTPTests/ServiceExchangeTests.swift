import Foundation
import RichPush
import TestSupport
import XCTest

/// `Fetcher.exchange`: requests to a configured service (object storage) on the fetcher's multi handle.
final class ServiceExchangeTests: XCTestCase {
    private func request(_ url: String, _ method: ServiceRequest.Method = .get, limit: Int = 64 << 20) -> ServiceRequest {
        ServiceRequest(method: method, url: url, deadline: .now + .seconds(5), maximumResponseBytes: limit)
    }

    func testAnyStatusComesBackWithItsBodyAndRedirectsAreNotFollowed() async throws {
        // No allow-network: the endpoint is configuration, so the SSRF guard that protects media fetches is off.
        let origin = try origin(), fetcher = try Fetcher()
        defer { fetcher.shutdown() }
        let missing = try await fetcher.exchange(request(origin.url("/status/404?exchange=1")))
        XCTAssertEqual(missing.status, 404)
        XCTAssertEqual(String(decoding: missing.body, as: UTF8.self), "status", "error bodies explain the failure")
        XCTAssertEqual(missing.headers["content-type"], "text/plain")

        let moved = try await fetcher.exchange(request(origin.url("/to?location=/bytes/1/10&exchange=1")))
        XCTAssertEqual(moved.status, 302)
        XCTAssertEqual(moved.headers["location"], "/bytes/1/10")

        let body = try await fetcher.exchange(request(origin.url("/bytes/5/3000?exchange=1")))
        XCTAssertEqual(body.body, LoopbackOrigin.body(seed: 5, size: 3000))
    }

    func testUnavailableIsRetriedOnce() async throws {
        let origin = try origin(), fetcher = try Fetcher()
        defer { fetcher.shutdown() }
        let path = "/flaky/503/exchange-\(UUID().uuidString)"
        let response = try await fetcher.exchange(request(origin.url(path)))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(origin.count(path), 2)

        let permanent = "/status/500"
        let before = origin.count(permanent)
        let failed = try await fetcher.exchange(request(origin.url(permanent + "?exchange=\(UUID().uuidString)")))
        XCTAssertEqual(failed.status, 500, "the second 500 is returned, not thrown")
        XCTAssertEqual(origin.count(permanent) - before, 2)
    }

    func testHeadIsNotHeldToTheAnnouncedLengthAndBodiesAreCapped() async throws {
        let origin = try origin(), fetcher = try Fetcher()
        defer { fetcher.shutdown() }
        let head = try await fetcher.exchange(request(origin.url("/bytes/1/500000?exchange=head"), .head, limit: 1000))
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.headers["content-length"], "500000")
        XCTAssertTrue(head.body.isEmpty)
        do {
            _ = try await fetcher.exchange(request(origin.url("/bytes/1/500000?exchange=get"), limit: 1000))
            XCTFail("a body over the cap must fail")
        } catch {
            guard case .tooLarge = error else { return XCTFail("expected tooLarge, got \(error)") }
        }
    }
}
