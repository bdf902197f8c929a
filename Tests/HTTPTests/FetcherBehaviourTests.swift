import Foundation
import RichPush
import TestSupport
import XCTest

final class FetcherBehaviourTests: XCTestCase {
    func testFetchReturnsBodyAndCacheMetadata() async throws {
        let origin = try origin(), fetcher = try makeFetcher()
        let media = try await fetch(fetcher, origin.url("/etag?sig=1"))
        XCTAssertEqual(media.status, 200)
        XCTAssertEqual(media.body, LoopbackOrigin.body(seed: 4, size: 4000))
        XCTAssertEqual(media.etag, "\"v1\"")
        XCTAssertEqual(media.lastModified, "Wed, 21 Oct 2015 07:28:00 GMT")
        XCTAssertEqual(media.maxAge, 600)
        XCTAssertFalse(media.isNotModified)
        XCTAssertEqual(media.redirectCount, 0)
        XCTAssertEqual(media.finalURL, origin.url("/etag?sig=1"))
        XCTAssertGreaterThan(media.timings.total, .zero)
        XCTAssertGreaterThanOrEqual(media.timings.total, media.timings.firstByte)
    }

    func testConditionalRequestReportsNotModified() async throws {
        let origin = try origin(), fetcher = try makeFetcher()
        let media = try await fetch(fetcher, origin.url("/etag"), ifNoneMatch: "\"v1\"")
        XCTAssertEqual(media.status, 304)
        XCTAssertTrue(media.isNotModified)
        XCTAssertTrue(media.body.isEmpty)
        XCTAssertEqual(origin.lastHeaders("/etag")?["if-none-match"], "\"v1\"")
        let stale = try await fetch(fetcher, origin.url("/etag"), ifNoneMatch: "\"v0\"")
        XCTAssertEqual(stale.status, 200)
        XCTAssertEqual(stale.body.count, 4000)
    }

    func testIfModifiedSinceIsSent() async throws {
        let origin = try origin(), fetcher = try makeFetcher()
        let media = try await fetcher.fetch(FetchRequest(
            url: origin.url("/etag"), deadline: .now + .seconds(5), ifModifiedSince: "Wed, 21 Oct 2015 07:28:00 GMT"))
        XCTAssertTrue(media.isNotModified)
        XCTAssertEqual(media.etag, "\"v1\"")
        XCTAssertEqual(media.maxAge, 600)
        XCTAssertEqual(origin.lastHeaders("/etag")?["if-modified-since"], "Wed, 21 Oct 2015 07:28:00 GMT")
        XCTAssertNil(origin.lastHeaders("/etag")?["if-none-match"])
    }

    func testWrongContentTypeIsReportedNotEnforced() async throws {
        let origin = try origin(), fetcher = try makeFetcher()
        let media = try await fetch(fetcher, origin.url("/wrongtype"))
        XCTAssertEqual(media.contentType, "text/html; charset=utf-8")
        XCTAssertEqual(media.body.prefix(4), Data([0x89, 0x50, 0x4e, 0x47]))
    }

    func testNoAcceptEncodingUnlessConfigured() async throws {
        let origin = try origin(), fetcher = try makeFetcher()
        let media = try await fetch(fetcher, origin.url("/gzip/1000"))
        XCTAssertEqual(media.body, Data(count: 1000))
        let headers = try XCTUnwrap(origin.lastHeaders("/gzip/1000"))
        XCTAssertNil(headers["accept-encoding"])
    }

    func testGzipBodyIsDecodedWhenEnabled() async throws {
        let origin = try origin(), fetcher = try makeFetcher { $0.acceptEncoding = true }
        let media = try await fetch(fetcher, origin.url("/gzip/100000"))
        XCTAssertEqual(media.body, Data(count: 100_000))
        XCTAssertTrue(origin.lastHeaders("/gzip/100000")?["accept-encoding"]?.contains("gzip") == true)
    }

    func testGzipBombIsCappedOnDecodedBytes() async throws {
        let origin = try origin()
        let fetcher = try makeFetcher { $0.acceptEncoding = true; $0.maximumBytes = 1_000_000 }
        let (error, elapsed) = await expectFailure(fetcher, origin.url("/gzip/5000000"))
        XCTAssertEqual(error, .tooLarge(url: origin.url("/gzip/5000000"), limit: 1_000_000))
        XCTAssertLessThan(elapsed, .seconds(3))
    }

    // MARK: - Redirects

    func testMixedRedirectChainIsFollowed() async throws {
        let origin = try origin(), fetcher = try makeFetcher()
        let media = try await fetch(fetcher, origin.url("/chain/301,302,307"))
        XCTAssertEqual(media.body, LoopbackOrigin.body(seed: 1, size: 1000))
        XCTAssertEqual(media.redirectCount, 3)
        XCTAssertEqual(media.finalURL, origin.url("/chain"))
    }

    func testRedirectLoopStopsAtLimit() async throws {
        let origin = try origin(), fetcher = try makeFetcher()
        let (error, elapsed) = await expectFailure(fetcher, origin.url("/loop"))
        XCTAssertEqual(error, .tooManyRedirects(url: origin.url("/loop")))
        XCTAssertEqual(origin.count("/loop"), 4, "the first request plus three followed redirects")
        XCTAssertLessThan(elapsed, .seconds(2))
    }

    func testChainLongerThanLimitFails() async throws {
        let origin = try origin(), fetcher = try makeFetcher { $0.maximumRedirects = 2 }
        let (error, _) = await expectFailure(fetcher, origin.url("/chain/302,301,307"))
        XCTAssertEqual(error?.code, "too_many_redirects")
    }

    func testRedirectToUnallowedLoopbackAddressIsBlockedBeforeConnecting() async throws {
        let origin = try origin(), fetcher = try makeFetcher()
        let target = origin.url("/bytes/5/100", onSecondary: true)
        let url = origin.url("/to?location=" + (target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
        let (error, elapsed) = await expectFailure(fetcher, url)
        XCTAssertEqual(error, .blockedAddress(url: target, ip: "127.0.0.2"))
        XCTAssertEqual(origin.totalCount(onSecondary: true), 0, "no request may reach 127.0.0.2")
        XCTAssertLessThan(elapsed, .seconds(2))
    }

    func testRedirectToCloudMetadataAddressIsBlocked() async throws {
        let origin = try origin(), fetcher = try makeFetcher()
        let url = origin.url("/to?location=http%3A%2F%2F169.254.169.254%2Flatest%2Fmeta-data%2F")
        let (error, elapsed) = await expectFailure(fetcher, url)
        XCTAssertEqual(error?.code, "blocked_address")
        if case .blockedAddress(_, let ip) = error { XCTAssertEqual(ip, "169.254.169.254") }
        XCTAssertLessThan(elapsed, .seconds(1))
    }

    func testRedirectToFileSchemeIsRejected() async throws {
        let origin = try origin(), fetcher = try makeFetcher()
        let (error, _) = await expectFailure(fetcher, origin.url("/to?location=file%3A%2F%2F%2Fetc%2Fpasswd"))
        XCTAssertEqual(error?.code, "unsupported_scheme")
    }

    func testRedirectToHostOutsideAllowlistIsBlockedBeforeTheRequest() async throws {
        let origin = try origin()
        let fetcher = try makeFetcher { $0.allowedHosts = ["127.0.0.1"] }
        let target = "http://localhost:\(origin.primary.port)/bytes/9/10"
        let url = origin.url("/to?location=" + (target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
        let connectionsBefore = origin.connectionCount()
        let (error, _) = await expectFailure(fetcher, url)
        XCTAssertEqual(error?.code, "blocked_host")
        XCTAssertEqual(origin.count("/bytes/9/10"), 0)
        XCTAssertEqual(origin.connectionCount() - connectionsBefore, 1, "the refused hop must not even connect")
    }

    func testRedirectCarryingCredentialsIsRefused() async throws {
        let origin = try origin(), fetcher = try makeFetcher()
        let target = "http://user:pw@127.0.0.1:\(origin.primary.port)/bytes/13/10"
        let url = origin.url("/to?location=" + (target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
        let (error, _) = await expectFailure(fetcher, url)
        XCTAssertEqual(error?.code, "credentials_in_url")
        XCTAssertEqual(origin.count("/bytes/13/10"), 0)
    }

    // MARK: - SSRF and URL validation

    func testDeniedAddressIsNeverContacted() async throws {
        let origin = try origin()
        let guarded = try Fetcher()  // no allowNetworks: all of loopback is denied
        let (error, _) = await expectFailure(guarded, origin.url("/bytes/6/10"))
        XCTAssertEqual(error, .blockedAddress(url: origin.url("/bytes/6/10"), ip: "127.0.0.1"))
        XCTAssertEqual(origin.count("/bytes/6/10"), 0)

        let fetcher = try makeFetcher()
        let (secondary, _) = await expectFailure(fetcher, origin.url("/bytes/7/10", onSecondary: true))
        XCTAssertEqual(secondary?.code, "blocked_address")
        XCTAssertEqual(origin.totalCount(onSecondary: true), 0)
    }

    func testHostAllowlistAppliesToTheFirstURL() async throws {
        let origin = try origin()
        let fetcher = try makeFetcher { $0.allowedHosts = ["media.example.com"] }
        let (error, _) = await expectFailure(fetcher, origin.url("/bytes/8/10"))
        XCTAssertEqual(error?.code, "blocked_host")
        XCTAssertEqual(origin.count("/bytes/8/10"), 0)
    }

    func testCredentialsAndForeignSchemesAreRejectedUpFront() async throws {
        let origin = try origin(), fetcher = try makeFetcher()
        let withCredentials = "http://user:hunter2@127.0.0.1:\(origin.primary.port)/bytes/1/1"
        let (credentials, _) = await expectFailure(fetcher, withCredentials)
        XCTAssertEqual(credentials, .credentialsInURL(url: withCredentials))
        XCTAssertFalse(credentials?.description.contains("hunter2") ?? true)
        for url in ["file:///etc/passwd", "ftp://127.0.0.1/x", "gopher://127.0.0.1/", "dict://127.0.0.1:11211/"] {
            let (error, _) = await expectFailure(fetcher, url)
            XCTAssertEqual(error?.code, "unsupported_scheme", url)
        }
        for url in ["not a url", "http://", ""] {
            let (error, _) = await expectFailure(fetcher, url)
            XCTAssertEqual(error?.code, "invalid_url", url)
        }
        // libcurl would fetch only what comes before the NUL; nothing is requested at all.
        for suffix in ["\u{0}/bytes/3/30", "\u{1B}", "\r\nX-Injected: 1"] {
            let url = origin.url("/bytes/3/30") + suffix
            let (error, _) = await expectFailure(fetcher, url)
            XCTAssertEqual(error?.code, "invalid_url", url.debugDescription)
        }
        XCTAssertEqual(origin.count("/bytes/3/30"), 0)
    }

    func testTLSFailureIsReported() async throws {
        let origin = try origin(), fetcher = try makeFetcher()
        // The origin speaks plain HTTP, so the handshake cannot succeed.
        let (error, elapsed) = await expectFailure(fetcher, "https://127.0.0.1:\(origin.primary.port)/bytes/1/1", budget: .seconds(3))
        XCTAssertEqual(error?.code, "tls", error?.description ?? "")
        XCTAssertLessThan(elapsed, .seconds(3))
    }

    // MARK: - HTTP status and retries

    func testClientErrorIsPermanentAndNotRetried() async throws {
        let origin = try origin(), fetcher = try makeFetcher()
        let (error, _) = await expectFailure(fetcher, origin.url("/status/404"))
        XCTAssertEqual(error, .httpStatus(url: origin.url("/status/404"), code: 404))
        XCTAssertEqual(error?.isPermanent, true)
        XCTAssertEqual(origin.count("/status/404"), 1)
    }

    func testServerErrorIsNotRetried() async throws {
        let origin = try origin(), fetcher = try makeFetcher()
        let (error, _) = await expectFailure(fetcher, origin.url("/status/500"))
        XCTAssertEqual(error?.code, "http_status")
        XCTAssertEqual(error?.isPermanent, false)
        XCTAssertEqual(origin.count("/status/500"), 1)
    }

    func testServiceUnavailableIsRetriedAfterRetryAfter() async throws {
        let origin = try origin(), fetcher = try makeFetcher()
        let started = ContinuousClock.now
        let media = try await fetch(fetcher, origin.url("/flaky/503/retry-after?retry-after=1"), budget: .seconds(4))
        XCTAssertEqual(media.body, LoopbackOrigin.body(seed: 2, size: 2000))
        XCTAssertEqual(media.attempts, 2)
        XCTAssertEqual(origin.count("/flaky/503/retry-after"), 2)
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - started, .milliseconds(950))
    }

    func testRetryAfterBeyondTheBudgetIsNotWaitedFor() async throws {
        let origin = try origin(), fetcher = try makeFetcher()
        let (error, elapsed) = await expectFailure(fetcher, origin.url("/status/503?retry-after=30"), budget: .seconds(3))
        XCTAssertEqual(error?.code, "http_status")
        XCTAssertEqual(origin.count("/status/503"), 1)
        XCTAssertLessThan(elapsed, .seconds(1))
    }

    func testTooManyRequestsAndGatewayErrorsAreRetriedOnce() async throws {
        let origin = try origin(), fetcher = try makeFetcher()
        for code in [429, 502, 504] {
            let media = try await fetch(fetcher, origin.url("/flaky/\(code)/jitter"))
            XCTAssertEqual(media.attempts, 2)
            XCTAssertEqual(origin.count("/flaky/\(code)/jitter"), 2)
        }
        let (error, _) = await expectFailure(fetcher, origin.url("/status/502"))
        XCTAssertEqual(error?.code, "http_status")
        XCTAssertEqual(origin.count("/status/502"), 2, "exactly one retry")
    }

    func testConnectionResetIsRetriedOnce() async throws {
        let origin = try origin(), fetcher = try makeFetcher()
        let media = try await fetch(fetcher, origin.url("/resetonce/a"))
        XCTAssertEqual(media.body, LoopbackOrigin.body(seed: 3, size: 3000))
        XCTAssertEqual(media.attempts, 2)
        // A fresh fetcher: libcurl silently re-sends a request once when a *reused* keep-alive connection dies,
        // which would blur the count of our own retry.
        let fresh = try makeFetcher()
        let (error, elapsed) = await expectFailure(fresh, origin.url("/reset"))
        XCTAssertEqual(error?.code, "connection")
        XCTAssertEqual(origin.count("/reset"), 2)
        XCTAssertLessThan(elapsed, .seconds(2))
    }

    func testNoRetryWhenTheBudgetIsTooShort() async throws {
        let origin = try origin(), fetcher = try makeFetcher()
        let (error, _) = await expectFailure(fetcher, origin.url("/flaky/503/short"), budget: .milliseconds(150))
        XCTAssertEqual(error?.code, "http_status")
        XCTAssertEqual(origin.count("/flaky/503/short"), 1)
    }

    // MARK: - Descriptions

    func testDescriptionsNeverIncludeQueryOrCredentials() {
        let errors: [FetchError] = [
            .httpStatus(url: "https://cdn.example.com/a.jpg?X-Amz-Signature=secret", code: 403),
            .blockedAddress(url: "http://u:secret@h.example/a?token=secret#frag", ip: "10.0.0.1"),
            .deadlineExceeded(url: "https://h.example/p?sig=secret"),
        ]
        for error in errors {
            XCTAssertFalse(error.description.contains("secret"), error.description)
            XCTAssertFalse(error.code.rawValue.isEmpty)
        }
        XCTAssertTrue(errors[0].description.contains("https://cdn.example.com/a.jpg"))
        XCTAssertTrue(errors[0].description.contains("403"))
    }
}
