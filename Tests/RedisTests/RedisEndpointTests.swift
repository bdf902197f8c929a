import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushCache
@testable import RichPushRedis
@testable import RichPushHTTP
@testable import RichPushPipeline

final class RedisEndpointTests: XCTestCase {
    func testParsesValidURLs() throws {
        let table: [(String, RedisEndpoint)] = [
            ("redis://localhost", RedisEndpoint(host: "localhost")),
            ("redis://127.0.0.1:6380", RedisEndpoint(host: "127.0.0.1", port: 6380)),
            ("redis://cache.internal:6379/3", RedisEndpoint(host: "cache.internal", port: 6379, database: 3)),
            ("redis://alice:s3cret@db.example:7000/2",
             RedisEndpoint(host: "db.example", port: 7000, database: 2, username: "alice", password: "s3cret")),
            ("redis://:onlypassword@host:1234", RedisEndpoint(host: "host", port: 1234, password: "onlypassword")),
            ("redis://legacy@host", RedisEndpoint(host: "host", password: "legacy")),
            ("redis://bob:p%40ss%2Fw%3Ard@host/0",
             RedisEndpoint(host: "host", database: 0, username: "bob", password: "p@ss/w:rd")),
            ("redis://u:pa@ss@host:1", RedisEndpoint(host: "host", port: 1, username: "u", password: "pa@ss")),
            ("REDIS://[::1]:6390/1", RedisEndpoint(host: "::1", port: 6390, database: 1)),
            ("redis://[::1]", RedisEndpoint(host: "::1")),
            ("redis://host/", RedisEndpoint(host: "host")),
        ]
        for (url, expected) in table {
            XCTAssertEqual(try RedisEndpoint(parsing: url), expected, url)
        }
    }

    func testRejectsInvalidURLs() {
        let table = [
            "localhost:6379", "http://host", "redis://", "redis://host:0", "redis://host:65536", "redis://host:abc",
            "redis://host/x", "redis://host/-1", "redis://host?db=1", "redis://[::1",
            "redis://u:%zz@host", "redis://host:1/2#frag", "redis://:pw@",
        ]
        for url in table {
            XCTAssertThrowsError(try RedisEndpoint(parsing: url), url) { error in
                guard case .invalidURL = error as? QueueError else { return XCTFail("\(url): \(error)") }
                XCTAssertEqual((error as? QueueError)?.code, "invalid_url")
            }
        }
    }

    func testTLSURLAsksForTLSWithTheSystemCAsAndTheHostChecked() throws {
        let endpoint = try RedisEndpoint(parsing: "rediss://user:topsecret@cache.example.com:6380/2")
        XCTAssertEqual(endpoint.tls, RedisTLSSettings())
        XCTAssertEqual(endpoint.tls?.verifiesServer, true)
        XCTAssertNil(endpoint.tls?.certificateAuthorityFile)
        XCTAssertEqual(endpoint.host, "cache.example.com")
        XCTAssertEqual(endpoint.port, 6380)
        XCTAssertEqual(endpoint.database, 2)
        XCTAssertEqual(endpoint.description, "rediss://user:***@cache.example.com:6380/2")
        XCTAssertNil(try RedisEndpoint(parsing: "redis://host").tls)
    }

    func testDescriptionsNeverShowThePassword() throws {
        let endpoint = try RedisEndpoint(parsing: "redis://alice:hunter2@host:7000/4")
        XCTAssertEqual(endpoint.description, "redis://alice:***@host:7000/4")
        XCTAssertThrowsError(try RedisEndpoint(parsing: "redis://alice:hunter2@host:notaport")) { error in
            XCTAssertFalse("\(error)".contains("hunter2"), "\(error)")
            XCTAssertTrue("\(error)".contains("host:notaport"), "\(error)")
        }
    }

    func testConfigurationValidation() {
        let endpoint = RedisEndpoint(host: "127.0.0.1")
        let handler: @Sendable (Data) async -> QueueJobOutcome = { FakeJobHandler.outcome(for: $0) }
        var configuration = StreamConsumerConfiguration(endpoint: endpoint)
        XCTAssertEqual(configuration.entriesPerRead, 16)
        configuration.concurrency = 64
        XCTAssertEqual(configuration.entriesPerRead, 64, "reads follow a concurrency set after init")
        configuration.batchSize = 8
        XCTAssertEqual(configuration.entriesPerRead, 8)
        configuration.batchSize = 0
        XCTAssertThrowsError(try RedisStreamConsumer(configuration: configuration, handler: handler))
        configuration.batchSize = nil
        XCTAssertTrue(configuration.consumer.hasSuffix("-\(getpid())"), configuration.consumer)
        configuration.concurrency = 0
        XCTAssertThrowsError(try RedisStreamConsumer(configuration: configuration, handler: handler))
        configuration = StreamConsumerConfiguration(endpoint: endpoint, resultsStream: "richpush:jobs")
        XCTAssertThrowsError(try RedisStreamConsumer(configuration: configuration, handler: handler)) { error in
            XCTAssertEqual((error as? QueueError)?.code, "invalid_configuration")
        }
        configuration = StreamConsumerConfiguration(endpoint: endpoint, blockTimeout: .zero)
        XCTAssertThrowsError(try RedisStreamConsumer(configuration: configuration, handler: handler))
    }

    func testMissingJobFieldResultIsValidJSON() throws {
        let data = MissingJobFieldResult.json(entryID: "1-0", stream: "s", fieldNames: ["pay\"load", "x\ny"])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        XCTAssertTrue(object["id"] is NSNull)
        XCTAssertEqual(object["status"] as? String, "rejected")
        let diagnostic = try XCTUnwrap((object["diagnostics"] as? [[String: Any]])?.first)
        XCTAssertEqual(diagnostic["code"] as? String, "missing_job_field")
        XCTAssertEqual(diagnostic["pointer"] as? String, "")
        XCTAssertEqual(diagnostic["severity"] as? String, "error")
        XCTAssertTrue((diagnostic["message"] as? String)?.contains("pay\"load") ?? false)
    }
}
