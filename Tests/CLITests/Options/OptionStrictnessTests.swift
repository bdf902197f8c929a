import Foundation
import XCTest
import TestSupport

/// Usage mistakes exit 2 with a message that names the option and where its value came from (flag, environment
/// variable or configuration file); nothing is silently taken for something else.
final class OptionStrictnessTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory("options")
    }

    override func tearDownWithError() throws {
    }

    private func process(_ arguments: [String], environment: [String: String] = [:]) throws -> CommandRunner.Output {
        try CommandRunner.run(
            ["process", "--cache-dir", directory.appendingPathComponent("cache").path] + arguments, input: "",
            environment: environment)
    }

    private func assertUsageError(
        _ output: CommandRunner.Output, mentions words: [String], file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(output.status, 2, output.standardError, file: file, line: line)
        for word in words {
            XCTAssertTrue(output.standardError.contains(word), "\(word) missing from: \(output.standardError)", file: file, line: line)
        }
    }

    func testMistakesOnTheCommandLineExitTwo() throws {
        assertUsageError(try process(["-c", "4"]), mentions: ["'-c'", "short options"])
        assertUsageError(try process(["--max-source-bytes", "0"]), mentions: ["--max-source-bytes", "above zero"])
        assertUsageError(try process(["--max-audio-bytes", "0"]), mentions: ["--max-audio-bytes", "above zero"])
        assertUsageError(try process(["--max-video-bytes", "0"]), mentions: ["--max-video-bytes", "above zero"])
        assertUsageError(try process(["--max-line-bytes", "0"]), mentions: ["--max-line-bytes"])
        assertUsageError(try process(["--deadline", "0"]), mentions: ["--deadline"])
        assertUsageError(try process(["--render-memory", "0"]), mentions: ["--render-memory", "above zero"])
        assertUsageError(try process(["--render-memory", "lots"]), mentions: ["--render-memory", "lots"])
        assertUsageError(try process(["--render-memory", "-5MB"]), mentions: ["--render-memory"])
        let budgeted = try process(["--render-memory", "256MB"])
        XCTAssertEqual(budgeted.status, 0, budgeted.standardError)
        XCTAssertTrue(budgeted.standardError.contains(#""render_memory_bytes":268435456"#), budgeted.standardError)
        XCTAssertEqual(try process(["--render-memory", "2GB"]).status, 0)
        assertUsageError(try process(["--deadline", "31s"]), mentions: ["--deadline", "30s", "--allow-long-deadline"])
        XCTAssertEqual(try process(["--deadline", "45s", "--allow-long-deadline"]).status, 0)
        assertUsageError(try process(["--allow-host", "not a host"]), mentions: ["--allow-host"])
        assertUsageError(try process(["--allow-host", "-bad.example.com"]), mentions: ["--allow-host"])
        XCTAssertEqual(try process(["--allow-host", ".example.com", "--allow-host", "10.0.0.1"]).status, 0)
        assertUsageError(try process(["--public-base-url", "cdn.example.com/richpush"]), mentions: ["--public-base-url"])
        assertUsageError(try process(["--public-base-url", "https://cdn.example.com/x?sig=1"]), mentions: ["query"])
        let prewarm = try CommandRunner.run(["prewarm", "--urls", "--variant", "thumbnail", "-"], input: "")
        assertUsageError(prewarm, mentions: ["--variant", "thumbnail", "attachment or big_picture or large_icon or story"])
    }

    func testValuesFromTheEnvironmentAndTheFileAreNamedBySource() throws {
        assertUsageError(try process([], environment: ["RICHPUSH_STRICT": "maybe"]), mentions: ["--strict", "RICHPUSH_STRICT"])
        assertUsageError(try process([], environment: ["RICHPUSH_DEADLINE": "0"]), mentions: ["--deadline", "(from RICHPUSH_DEADLINE)"])
        XCTAssertEqual(try process([], environment: ["RICHPUSH_STRICT": "false"]).status, 0)

        let config = directory.appendingPathComponent("richpush.json")
        try Data(#"{"deadline": "40s"}"#.utf8).write(to: config)
        assertUsageError(try process(["--config", config.path]), mentions: ["--deadline", "configuration file \(config.path)"])
    }

    func testOneConfigurationFileServesEveryCommand() throws {
        // consume's and serve's keys are ignored by process; a key no command knows is still an error.
        let shared = directory.appendingPathComponent("shared.json")
        try Data(#"{"redis": "redis://127.0.0.1:6379/0", "listen": "127.0.0.1:9000", "deadline": "10s", "strict": true}"#.utf8)
            .write(to: shared)
        XCTAssertEqual(try process(["--config", shared.path]).status, 0)
        let cache = try CommandRunner.run(["cache", "stats", "--config", shared.path, "--cache-dir", directory.path])
        XCTAssertNotEqual(cache.status, 2, cache.standardError)

        let wrong = directory.appendingPathComponent("wrong.json")
        try Data(#"{"deadlin": "10s"}"#.utf8).write(to: wrong)
        assertUsageError(try process(["--config", wrong.path]), mentions: ["unknown key 'deadlin'"])
    }

    func testBenchFollowsTheSameRules() throws {
        let bench = CommandRunner.executable.deletingLastPathComponent().appendingPathComponent("richpush-bench")
        func run(_ arguments: [String]) throws -> Int32 {
            let process = Process()
            process.executableURL = bench
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus
        }
        XCTAssertEqual(try run(["--help"]), 0)
        XCTAssertEqual(try run([]), 2)
        XCTAssertEqual(try run(["nonsense"]), 2)
        XCTAssertEqual(try run(["transform", "--bogus", "3", "a.jpg"]), 2)
        XCTAssertEqual(try run(["transform", "--width", "wide", "a.jpg"]), 2)
        XCTAssertEqual(try run(["fetch", "--count"]), 2)
    }
}
