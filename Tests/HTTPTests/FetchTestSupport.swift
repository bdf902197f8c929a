import Foundation
import RichPush
import TestSupport
import XCTest

extension XCTestCase {
    func origin() throws -> LoopbackOrigin {
        try LoopbackOrigin.shared()
    }

    func makeFetcher(_ adjust: (inout FetchConfiguration) -> Void = { _ in }) throws -> Fetcher {
        var configuration = FetchConfiguration(allowNetworks: [try IPNetwork("127.0.0.1/32")])
        adjust(&configuration)
        return try Fetcher(configuration: configuration)
    }

    /// Runs a fetch expected to fail; returns the error and the elapsed time.
    func expectFailure(_ fetcher: Fetcher, _ url: String, budget: Duration = .seconds(5),
                       file: StaticString = #filePath, line: UInt = #line) async -> (FetchError?, Duration) {
        let started = ContinuousClock.now
        do {
            let media = try await fetcher.fetch(FetchRequest(url: url, deadline: started + budget))
            XCTFail("expected failure, got status \(media.status) with \(media.body.count) bytes", file: file, line: line)
            return (nil, ContinuousClock.now - started)
        } catch {
            return (error, ContinuousClock.now - started)
        }
    }

    func fetch(_ fetcher: Fetcher, _ url: String, budget: Duration = .seconds(5), ifNoneMatch: String? = nil) async throws -> FetchedMedia {
        try await fetcher.fetch(FetchRequest(url: url, deadline: .now + budget, ifNoneMatch: ifNoneMatch))
    }
}
