import Foundation
import TestSupport
import XCTest

/// No placeholder reaches a device silently: `serve` and `consume` need an explicit https `--public-base-url`; the
/// one-shot commands run on the placeholder but say so once, as a JSON log line.
final class SafeDefaultsTests: XCTestCase {
    private let placeholderEvent = "placeholder_public_base_url"

    private func events(_ log: String) -> [[String: Any]] {
        log.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    // Each call also carries a mistake checked later (a bad --listen, a Redis URL that is no URL), so that a binary
    // without the check exits rather than serves.
    private let serve = ["serve", "--listen", "nowhere"]
    private let consume = ["consume", "--redis", "nowhere"]

    func testServeAndConsumeRefuseToStartWithoutAPublicBaseURL() throws {
        let cache = try makeTemporaryDirectory("defaults").appendingPathComponent("cache").path
        for arguments in [serve, consume] {
            let output = try CommandRunner.run(arguments + ["--cache-dir", cache])
            XCTAssertEqual(output.status, 2, "\(arguments): \(output.standardError)")
            XCTAssertTrue(output.standardError.contains("'--public-base-url' is required"), output.standardError)
            XCTAssertTrue(output.standardError.contains("RICHPUSH_PUBLIC_BASE_URL"), output.standardError)
        }
        // The environment counts as explicit: the next check (a malformed --listen) is what stops it.
        let fromEnvironment = try CommandRunner.run(
            ["serve", "--listen", "nowhere"], environment: ["RICHPUSH_PUBLIC_BASE_URL": "https://media-cdn.test/rp"])
        XCTAssertEqual(fromEnvironment.status, 2)
        XCTAssertTrue(fromEnvironment.standardError.contains("--listen"), fromEnvironment.standardError)
        // So does the shipped configuration file once the operator adds the key; as shipped it has none.
        let shipped = packageRoot.appendingPathComponent("deploy/richpush.json").path
        let unconfigured = try CommandRunner.run(["serve", "--config", shipped, "--listen", "nowhere"])
        XCTAssertTrue(unconfigured.standardError.contains("'--public-base-url' is required"), unconfigured.standardError)
    }

    func testPlainHTTPNeedsAllowHTTPCDN() throws {
        let cache = try makeTemporaryDirectory("defaults").appendingPathComponent("cache").path
        let base = ["--cache-dir", cache, "--public-base-url", "http://media-cdn.test/rp"]
        for command in [serve, consume, ["process"]] {
            let output = try CommandRunner.run(command + base, input: "")
            XCTAssertEqual(output.status, 2, "\(command): \(output.standardError)")
            XCTAssertTrue(output.standardError.contains("App Transport Security"), output.standardError)
        }
        let allowed = try CommandRunner.run(["process", "--allow-http-cdn"] + base, input: "")
        XCTAssertEqual(allowed.status, 0, allowed.standardError)
    }

    func testOneShotCommandsWarnOnceAboutThePlaceholder() throws {
        let directory = try makeTemporaryDirectory("defaults")
        let cache = directory.appendingPathComponent("cache").path
        let job = #"{"id":"a","payload":{"aps":{"alert":{"title":"T","body":"B"}}}}"#
        let file = directory.appendingPathComponent("job.json")
        try Data(job.utf8).write(to: file)
        let runs: [(arguments: [String], input: String)] = [
            (["process", "--cache-dir", cache], job + "\n" + job + "\n"),
            (["validate", "--no-fetch", "--format", "json", "--cache-dir", cache, file.path], ""),
            (["prewarm", "--urls", "--cache-dir", cache, "-"], ""),
        ]
        for run in runs {
            let output = try CommandRunner.run(run.arguments, input: run.input)
            XCTAssertEqual(output.status, 0, "\(run.arguments): \(output.standardError)")
            let warnings = events(output.standardError).filter { $0["event"] as? String == placeholderEvent }
            XCTAssertEqual(warnings.count, 1, "\(run.arguments): \(output.standardError)")
            XCTAssertEqual(warnings.first?["level"] as? String, "warning")
            XCTAssertEqual(warnings.first?["public_base_url"] as? String, "https://cdn.example.com/richpush")

            let explicit = try CommandRunner.run(run.arguments + ["--public-base-url", "https://media-cdn.test/rp"], input: run.input)
            XCTAssertEqual(explicit.status, 0, explicit.standardError)
            XCTAssertFalse(explicit.standardError.contains(placeholderEvent), explicit.standardError)
        }
    }

    func testShippedConfigurationCarriesNoPlaceholder() throws {
        let text = try String(contentsOf: packageRoot.appendingPathComponent("deploy/richpush.json"), encoding: .utf8)
        XCTAssertFalse(text.contains("example.com"), text)
        XCTAssertFalse(text.contains("com.example.app"), text)
    }
}
