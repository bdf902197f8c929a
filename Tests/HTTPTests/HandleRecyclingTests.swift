import Foundation
import RichPush
import TestSupport
import XCTest

/// Transfers aborted while they wait for a connection (behind the per-host cap) must leave nothing behind that
/// breaks later transfers: libcurl 7.88 kept such a handle's receive buffer through `curl_easy_reset`, and the
/// recycled handle then refused `CURLOPT_BUFFERSIZE`, failing every later fetch with `invalid_configuration`.
final class HandleRecyclingTests: XCTestCase {
    /// Starts stalled fetches for every URL at once, each with a 1 s deadline, and waits until all have failed.
    private func stallAll(_ fetcher: Fetcher, _ urls: [String]) async {
        await withTaskGroup(of: Void.self) { group in
            for url in urls {
                group.addTask {
                    let failure = await Self.failure(fetcher, url, budget: .seconds(1))
                    XCTAssertNotNil(failure, "\(url) stalls, so it must fail")
                }
            }
        }
    }

    private static func failure(_ fetcher: Fetcher, _ url: String, budget: Duration) async -> FetchError? {
        do {
            _ = try await fetcher.fetch(FetchRequest(url: url, deadline: .now + budget))
            return nil
        } catch {
            return error
        }
    }

    private func assertLaterFetchesSucceed(_ fetcher: Fetcher, _ urls: [String], file: StaticString = #filePath,
                                           line: UInt = #line) async throws {
        for (index, url) in urls.enumerated() {
            do {
                let media = try await fetcher.fetch(FetchRequest(url: url, deadline: .now + .seconds(5)))
                XCTAssertEqual(media.body, LoopbackOrigin.body(seed: 90 + index % 3, size: 3000), file: file, line: line)
            } catch {
                XCTFail("fetch \(index) of \(url) after the stalled ones failed: \(error.code): \(error)", file: file, line: line)
            }
        }
    }

    func testTransfersQueuedBehindTheHostCapAndAbortedLeaveHandlesAsGoodAsNew() async throws {
        let origin = try origin()
        let fetcher = try makeFetcher()
        defer { fetcher.shutdown() }
        // 12 > the 8 connections a host may have: four wait in libcurl's pending queue until the deadline.
        await stallAll(fetcher, (0..<12).map { origin.url("/stall/recycle-\($0)") })
        let valid = (0..<16).map { origin.url("/bytes/\(90 + $0 % 3)/3000?\($0)") }
        try await assertLaterFetchesSucceed(fetcher, valid)
    }

    func testHundredStalledSourcesOverThreeHostsDoNotPoisonLaterFetches() async throws {
        let origin = try origin()
        let third = try LoopbackOrigin()
        defer { third.stop() }
        let fetcher = try makeFetcher { $0.allowNetworks = [try! IPNetwork("127.0.0.0/8")] }
        defer { fetcher.shutdown() }
        let stalled = (0..<100).map { index -> String in
            switch index % 3 {
            case 0: origin.url("/stall/spread-\(index)")
            case 1: origin.url("/stall/spread-\(index)", onSecondary: true)
            default: third.url("/stall/spread-\(index)")
            }
        }
        await stallAll(fetcher, stalled)
        let valid = (0..<12).map { index -> String in
            let path = "/bytes/\(90 + index % 3)/3000?after-\(index)"
            return index % 2 == 0 ? origin.url(path, onSecondary: true) : third.url(path)
        }
        try await assertLaterFetchesSucceed(fetcher, valid)
    }
}
