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

    /// One job's many stalled sources took all 8 connections of a host, and another job's images on that host
    /// waited behind them past their deadline. A job now holds at most half of a host's connections.
    func testOneJobsStalledSourcesLeaveConnectionsForAnotherJob() async throws {
        let origin = try origin()
        let fetcher = try makeFetcher()
        defer { fetcher.shutdown() }
        XCTAssertEqual(fetcher.configuration.maximumConnectionsPerHostPerOwner, 4)
        let run = UUID().uuidString
        let stalling = FetchOwner()
        let stalledPaths = (0..<10).map { "/stall/\(run)-\($0)" }
        let stalledURLs = stalledPaths.map { origin.url($0) }
        let stalled = Task {
            await withTaskGroup(of: Bool.self) { group in
                for url in stalledURLs {
                    group.addTask { (try? await fetcher.fetch(FetchRequest(url: url, deadline: .now + .seconds(8), owner: stalling))) == nil }
                }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
        }
        // The stalled job asks first and gets the host's connections it may have.
        try await waitUntil(timeout: .seconds(10), "the stalled job to hold its connections", interval: .milliseconds(5)) {
            stalledPaths.reduce(0) { $0 + origin.count($1) } >= fetcher.configuration.maximumConnectionsPerHostPerOwner
        }
        let other = FetchOwner()
        let deadline = ContinuousClock.now + .seconds(3)
        let finished = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<10 {
                let url = origin.url("/bytes/\(index + 100)/5000")
                group.addTask { (try? await fetcher.fetch(FetchRequest(url: url, deadline: deadline, owner: other))) != nil }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        XCTAssertEqual(finished, 10, "every valid image of the other job finishes within its deadline")
        stalled.cancel()
        let failedStalls = await stalled.value
        XCTAssertEqual(failedStalls, 10, "the stalled sources still end in errors")
    }
}
