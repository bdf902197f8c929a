import Foundation
import TestSupport
import XCTest

/// `process` and `cache` with `--cache-url s3://…` against a local moto S3 server that checks signatures.
final class ObjectStorageCommandTests: XCTestCase {
    func testProcessPublishesToObjectStorageAndCacheCommandsWorkOnIt() throws {
        let moto = try MotoServer()
        defer { moto.stop() }
        try moto.createBucket("campaign-media")
        let credentials = ["AWS_ACCESS_KEY_ID": moto.accessKeyID, "AWS_SECRET_ACCESS_KEY": moto.secretAccessKey]
        let storage = ["--cache-url", "s3://campaign-media/richpush", "--s3-endpoint", moto.endpoint]
        let origin = "https://media.example.com/=" + packageRoot.appendingPathComponent("Fixtures/media").path

        let process = try CommandRunner.run(
            ["process", "--local-origin", origin, "--public-base-url", "https://cdn.example.com/rp"] + storage
                + ["Fixtures/jobs/sample.ndjson"],
            environment: credentials, workingDirectory: packageRoot)
        XCTAssertEqual(process.status, 0, process.standardError)
        XCTAssertTrue(process.standardError.contains("per process only"), "the missing lease is logged: \(process.standardError)")
        let cachedURLs = process.lines.flatMap { line -> [String] in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let media = object["media"] as? [[String: Any]]
            else { return [] }
            return media.compactMap { $0["cached_url"] as? String }
        }
        XCTAssertEqual(cachedURLs.count, 4, process.standardOutput)
        let stored = Set(try moto.listKeys(bucket: "campaign-media", prefix: "richpush/objects/"))
        for url in cachedURLs {
            XCTAssertTrue(url.hasPrefix("https://cdn.example.com/rp/objects/"), url)
            XCTAssertTrue(stored.contains("richpush/" + url.dropFirst("https://cdn.example.com/rp/".count)), url)
        }

        let stats = try CommandRunner.run(
            ["cache", "stats", "--format", "json"] + storage, environment: credentials)
        XCTAssertEqual(stats.status, 0, stats.standardError)
        let statistics = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(stats.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual(statistics["object_count"] as? Int, 4)
        XCTAssertEqual(statistics["negative_entry_count"] as? Int, 1, "the broken image is remembered")
        XCTAssertEqual(try CommandRunner.run(["cache", "verify"] + storage, environment: credentials).status, 0)
    }

    func testValidateHTMLInlinesObjectsReadBackFromTheBucket() throws {
        let moto = try MotoServer()
        defer { moto.stop() }
        try moto.createBucket("campaign-media")
        let credentials = ["AWS_ACCESS_KEY_ID": moto.accessKeyID, "AWS_SECRET_ACCESS_KEY": moto.secretAccessKey]
        let origin = "https://media.example.com/=" + packageRoot.appendingPathComponent("Fixtures/media").path
        let directory = try makeTemporaryDirectory("s3-preview")
        let story = directory.appendingPathComponent("story.json")
        try Data(#"{"aps":{"alert":{"title":"T","body":"B"}},"pw_stories":{"pages":[{"image":"https://media.example.com/story1.jpg","title":"One"}]}}"#.utf8)
            .write(to: story)
        let html = directory.appendingPathComponent("preview.html")
        let output = try CommandRunner.run(
            ["validate", "--local-origin", origin, "--cache-url", "s3://campaign-media/richpush", "--s3-endpoint", moto.endpoint,
             "--html", html.path, story.path],
            environment: credentials)
        XCTAssertEqual(output.status, 0, output.standardOutput + output.standardError)
        let document = try ValidateCommandTests.embeddedDocument(try String(contentsOf: html, encoding: .utf8))
        let images = try XCTUnwrap(document["images"] as? [String: String])
        XCTAssertEqual(images.count, 1)
        let bytes = try XCTUnwrap(Data(base64Encoded: String(try XCTUnwrap(images.values.first).dropFirst("data:image/jpeg;base64,".count))))
        XCTAssertEqual(Array(bytes.prefix(2)), [0xFF, 0xD8], "the object's bytes, read back with one GET")
    }

    func testStartUpFailsOnceWithAClearErrorForAMissingBucketOrWrongCredentials() throws {
        let moto = try MotoServer()
        defer { moto.stop() }
        try moto.createBucket("exists")
        let job = #"{"aps":{"alert":"hi"},"image_url":"https://media.example.com/hero.jpg"}"# + "\n"

        let missing = try CommandRunner.run(
            ["process", "--cache-url", "s3://absent/x", "--s3-endpoint", moto.endpoint], input: job,
            environment: ["AWS_ACCESS_KEY_ID": moto.accessKeyID, "AWS_SECRET_ACCESS_KEY": moto.secretAccessKey])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.standardError.contains("bucket absent does not exist"), missing.standardError)
        XCTAssertEqual(missing.standardOutput, "", "no job is taken when the cache is unusable")

        let refused = try CommandRunner.run(
            ["process", "--cache-url", "s3://exists/x", "--s3-endpoint", moto.endpoint], input: job,
            environment: ["AWS_ACCESS_KEY_ID": moto.accessKeyID, "AWS_SECRET_ACCESS_KEY": "wrong"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.standardError.contains("credentials refused"), refused.standardError)
        XCTAssertFalse(refused.standardError.contains("wrong"), "the secret is never printed")

        let unset = try CommandRunner.run(
            ["process", "--cache-url", "s3://exists/x", "--s3-endpoint", moto.endpoint], input: job,
            environment: ["AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": ""])
        XCTAssertEqual(unset.status, 1)
        XCTAssertTrue(unset.standardError.contains("AWS_ACCESS_KEY_ID"), unset.standardError)
    }
}
