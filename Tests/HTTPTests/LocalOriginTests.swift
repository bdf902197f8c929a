import Foundation
import RichPush
import XCTest
import TestSupport

final class LocalOriginTests: XCTestCase {
    private var root: URL!
    private var media: URL!

    override func setUpWithError() throws {
        root = try makeTemporaryDirectory("local")
        media = root.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: media.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try Data("inside".utf8).write(to: media.appendingPathComponent("sub/a.jpg"))
        try Data("secret".utf8).write(to: root.appendingPathComponent("secret.txt"))
        try Data(count: 2000).write(to: media.appendingPathComponent("big.png"))
        try FileManager.default.createSymbolicLink(atPath: media.appendingPathComponent("escape.jpg").path,
                                                   withDestinationPath: root.appendingPathComponent("secret.txt").path)
        try FileManager.default.createSymbolicLink(atPath: media.appendingPathComponent("inner.jpg").path,
                                                   withDestinationPath: "sub/a.jpg")
    }

    override func tearDownWithError() throws {
    }

    private func fetcher(maximumBytes: Int = 10_000) throws -> Fetcher {
        try Fetcher(configuration: FetchConfiguration(
            maximumBytes: maximumBytes,
            localOrigins: [LocalOrigin(prefix: "https://media.example.com/", directory: media.path)]))
    }

    func testServesFilesUnderThePrefix() async throws {
        let fetcher = try fetcher()
        let found = try await fetch(fetcher, "https://media.example.com/sub/a.jpg?v=2")
        XCTAssertEqual(found.body, Data("inside".utf8))
        XCTAssertEqual(found.contentType, "image/jpeg")
        XCTAssertEqual(found.status, 200)
        let viaInnerLink = try await fetch(fetcher, "https://media.example.com/inner.jpg")
        XCTAssertEqual(viaInnerLink.body, Data("inside".utf8))
        let encoded = try await fetch(fetcher, "https://media.example.com/sub%2Fa.jpg")
        XCTAssertEqual(encoded.body, Data("inside".utf8))
    }

    func testTraversalAndEscapesAreRefused() async throws {
        let fetcher = try fetcher()
        let attempts = [
            "https://media.example.com/../secret.txt",
            "https://media.example.com/sub/../../secret.txt",
            "https://media.example.com/%2e%2e/secret.txt",
            "https://media.example.com/sub/%2E%2E%2F%2E%2E%2Fsecret.txt",
            "https://media.example.com/..%5csecret.txt",
            "https://media.example.com/escape.jpg",
            "https://media.example.com/missing.jpg",
            "https://media.example.com/sub",
            "https://media.example.com/a%00.jpg",
            "https://media.example.com/%zz",
        ]
        for url in attempts {
            let (error, _) = await expectFailure(fetcher, url)
            XCTAssertEqual(error?.code, "local_file", url)
            XCTAssertFalse(error?.description.contains("secret\"") ?? false)
        }
    }

    func testByteCapAppliesToLocalFiles() async throws {
        let fetcher = try fetcher(maximumBytes: 1000)
        let (error, _) = await expectFailure(fetcher, "https://media.example.com/big.png")
        XCTAssertEqual(error, .tooLarge(url: "https://media.example.com/big.png", limit: 1000))
    }

    func testFileURLsAreRejectedWithoutAMapping() async throws {
        let fetcher = try fetcher()
        let (error, _) = await expectFailure(fetcher, "file://" + media.appendingPathComponent("sub/a.jpg").path)
        XCTAssertEqual(error?.code, "unsupported_scheme")
    }

    func testMappingParsing() throws {
        let origin = try LocalOrigin(parsing: "https://media.example.com/=Fixtures/media")
        XCTAssertEqual(origin.prefix, "https://media.example.com/")
        XCTAssertEqual(origin.directory, "Fixtures/media")
        for bad in ["nothing", "=dir", "prefix="] {
            XCTAssertThrowsError(try LocalOrigin(parsing: bad), bad)
        }
    }
}
