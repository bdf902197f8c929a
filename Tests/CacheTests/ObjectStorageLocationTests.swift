import XCTest

import RichPush
@testable import RichPushCore
@testable import RichPushCache
@testable import RichPushHTTP
@testable import RichPushPipeline

final class ObjectStorageLocationTests: XCTestCase {
    func testLocationParsingRejectsBadInput() {
        func problem(_ url: String, endpoint: String? = nil, key: String? = "id") -> String? {
            do {
                _ = try ObjectStorageLocation(
                    cacheURL: url, endpoint: endpoint, region: "us-east-1", accessKeyID: key, secretAccessKey: "s")
                return nil
            } catch {
                return error.description
            }
        }
        XCTAssertNil(problem("s3://bucket-1/a/b/"))
        XCTAssertTrue(problem("https://bucket/a")?.contains("s3://bucket/prefix") ?? false)
        XCTAssertTrue(problem("s3://Bad_Bucket/a")?.contains("bucket name") ?? false)
        XCTAssertTrue(problem("s3://bucket-1/a", endpoint: "ftp://x")?.contains("endpoint") ?? false)
        XCTAssertTrue(problem("s3://bucket-1/a", key: nil)?.contains("AWS_ACCESS_KEY_ID") ?? false)

        let location = try? ObjectStorageLocation(
            cacheURL: "s3://bucket-1//a/b//", endpoint: "http://127.0.0.1:9000/", region: "eu-west-1",
            accessKeyID: "id", secretAccessKey: "s")
        XCTAssertEqual(location?.prefix, "a/b")
        XCTAssertEqual(location?.url(objectKey: "a/b/objects/x y.jpg"), "http://127.0.0.1:9000/bucket-1/a/b/objects/x%20y.jpg")
        let aws = try? ObjectStorageLocation(
            cacheURL: "s3://bucket-1", endpoint: nil, region: "eu-west-1", accessKeyID: "id", secretAccessKey: "s")
        XCTAssertEqual(aws?.url(objectKey: "k.jpg"), "https://bucket-1.s3.eu-west-1.amazonaws.com/k.jpg")
    }
}
