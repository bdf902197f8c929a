import Foundation
import RichPush
import TestSupport
import XCTest

/// A stalled transfer must not hold back other transfers to the same host.
final class HostSharingTests: XCTestCase {
    func testStalledSourceDoesNotDelayOthersOnTheSameHost() async throws {
        let origin = try origin()
        let fetcher = try makeFetcher()
        defer { fetcher.shutdown() }
        let stalledURL = origin.url("/stall/host-sharing")
        let stalled = Task {
            do {
                _ = try await fetcher.fetch(FetchRequest(url: stalledURL, deadline: .now + .seconds(4)))
                return false
            } catch {
                return true
            }
        }
        // Both start together, before any connection to the host exists: the case that queued them on one.
        let started = ContinuousClock.now
        let media = try await fetch(fetcher, origin.url("/bytes/77/5000"), budget: .seconds(4))
        XCTAssertEqual(media.body, LoopbackOrigin.body(seed: 77, size: 5000))
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(1), "must not queue behind the stalled connection")
        let stalledFailed = await stalled.value
        XCTAssertTrue(stalledFailed, "the stalled source still ends in an error")
    }
}
