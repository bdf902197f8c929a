import Foundation
import XCTest

import RichPushCore
@testable import RichPushCache
import TestSupport

/// The cache's file digest (`SHA256.hexDigest(ofFileAt:)`, read in chunks) against the system's `sha256sum`.
final class SHA256FileTests: XCTestCase {
    func testFileDigestMatchesSha256sum() throws {
        let fixture = packageRoot.appendingPathComponent("Fixtures/conformance/png/basn6a08.png").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [fixture]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let expected = String(decoding: output, as: UTF8.self).split(separator: " ").first.map(String.init)
        let digest = try SHA256.hexDigest(ofFileAt: fixture)
        XCTAssertEqual(digest.hexDigest, expected)
        XCTAssertEqual(digest.bytes, try Data(contentsOf: URL(fileURLWithPath: fixture)).count)
        XCTAssertEqual(SHA256.hexDigest(of: try Data(contentsOf: URL(fileURLWithPath: fixture))), expected)
    }
}
