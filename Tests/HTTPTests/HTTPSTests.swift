import Foundation
import RichPush
import TestSupport
import XCTest

/// HTTPS against a real server (nginx): certificate verification and HTTP/2 multiplexing on one connection.
final class HTTPSTests: XCTestCase {
    func testVerificationAndHTTP2Multiplexing() async throws {
        var files: [String: Data] = [:]
        for index in 0..<20 { files["f\(index).bin"] = LoopbackOrigin.body(seed: 200 + index, size: 20_000 + index) }
        let origin = try TLSOrigin(files: files)
        defer { origin.stop() }

        let untrusting = try makeFetcher()
        let (error, _) = await expectFailure(untrusting, origin.url("/f0.bin"))
        XCTAssertEqual(error?.code, "tls", "a self-signed certificate must fail verification")
        XCTAssertTrue(origin.accessLog().isEmpty)

        let fetcher = try makeFetcher { $0.certificateAuthorityPath = origin.certificatePath }
        let deadline = ContinuousClock.now + .seconds(10)
        let urls = (0..<20).map { origin.url("/f\($0).bin") }
        let bodies = try await withThrowingTaskGroup(of: (Int, Data).self) { group in
            for index in 0..<20 {
                group.addTask { (index, try await fetcher.fetch(FetchRequest(url: urls[index], deadline: deadline)).body) }
            }
            var collected: [Int: Data] = [:]
            for try await (index, body) in group { collected[index] = body }
            return collected
        }
        for index in 0..<20 { XCTAssertEqual(bodies[index], files["f\(index).bin"], "file \(index)") }

        let log = origin.accessLog().map { $0.split(separator: " ") }
        XCTAssertEqual(log.count, 20)
        XCTAssertTrue(log.allSatisfy { $0.first == "HTTP/2.0" }, "\(log)")
        XCTAssertEqual(Set(log.map { $0.dropFirst().first }).count, 1, "all requests multiplexed on one connection")
    }
}
