import Foundation
import TestSupport
import XCTest

/// Nothing on the command line or in the environment is silently ignored, every size is above zero, files are read
/// as streams, and `cache gc`'s exit status tells a missed budget from a missing cache.
final class StrictCommandLineTests: XCTestCase {
    private var directory: URL!
    /// serve and consume stop at a later mistake (a bad --listen, a TLS Redis URL) if the check under test is missing,
    /// so a broken binary exits instead of serving.
    private let serve = ["serve", "--listen", "nowhere", "--public-base-url", "https://media-cdn.test/rp"]
    private let consume = ["consume", "--redis", "rediss://127.0.0.1:1/0", "--public-base-url", "https://media-cdn.test/rp"]

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory("strict")
    }

    private func assertUsageError(
        _ output: CommandRunner.Output, mentions words: [String], file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(output.status, 2, output.standardError, file: file, line: line)
        for word in words {
            XCTAssertTrue(output.standardError.contains(word), "\(word) missing from: \(output.standardError)", file: file, line: line)
        }
    }

    func testStrayArgumentsAndOtherActionsOptionsExitTwo() throws {
        let cache = directory.appendingPathComponent("cache")
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        assertUsageError(try CommandRunner.run(serve + ["extra-arg"]), mentions: ["unexpected argument 'extra-arg'", "serve --help"])
        assertUsageError(try CommandRunner.run(consume + ["extra"]), mentions: ["unexpected argument 'extra'"])
        assertUsageError(
            try CommandRunner.run(["cache", "stats", "extra", "--cache-dir", cache.path]), mentions: ["unexpected argument 'extra'"])
        assertUsageError(
            try CommandRunner.run(["cache", "gc", "--repair", "--max-bytes", "1GB", "--cache-dir", cache.path]),
            mentions: ["'--repair'", "cache gc"])
        assertUsageError(
            try CommandRunner.run(["cache", "verify", "--max-bytes", "1GB", "--cache-dir", cache.path]),
            mentions: ["'--max-bytes'", "cache verify"])
        // The shared configuration file holds gc's max-bytes; stats and verify take it without complaint.
        let config = directory.appendingPathComponent("shared.json")
        try Data(#"{"max-bytes": "1GB"}"#.utf8).write(to: config)
        XCTAssertEqual(try CommandRunner.run(["cache", "verify", "--config", config.path, "--cache-dir", cache.path]).status, 0)
    }

    func testEverySizeOptionRefusesZero() throws {
        let cache = directory.appendingPathComponent("cache")
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        let runs: [String: [String]] = [
            "process": ["process", "--cache-dir", cache.path],
            "validate": ["validate", "--no-fetch", "--cache-dir", cache.path, "Fixtures/jobs/sample.ndjson"],
            "prewarm": ["prewarm", "--urls", "--cache-dir", cache.path, "-"],
            "serve": ["serve", "--listen", "127.0.0.1:0", "--public-base-url", "https://media-cdn.test/rp", "--cache-dir", cache.path],
            "consume": consume + ["--cache-dir", cache.path],
            "cache": ["cache", "gc", "--cache-dir", cache.path],
        ]
        var checked = 0
        for (command, arguments) in runs {
            // Every option whose value is a SIZE, as --help lists them.
            let help = try CommandRunner.run([command, "--help"]).standardOutput
            let sizes = help.split(separator: "\n").compactMap { line -> String? in
                let words = line.split(separator: " ")
                guard words.count >= 2, words[0].hasPrefix("--"), words[1] == "SIZE" else { return nil }
                return String(words[0])
            }
            XCTAssertFalse(sizes.isEmpty, command)
            for option in sizes {
                assertUsageError(try CommandRunner.run(arguments + [option, "0"], input: ""), mentions: [option, "above zero"])
                checked += 1
            }
        }
        XCTAssertEqual(checked, 5 * 5 + 3,
                       "five worker sizes in each of five worker commands, serve's max-body and preview-inline-images, and gc's max-bytes")
    }

    func testAMissingConfigurationFileIsOnePlainLine() throws {
        let missing = directory.appendingPathComponent("nonexistent.json").path
        let output = try CommandRunner.run(["process", "--config", missing], input: "")
        assertUsageError(output, mentions: ["cannot read configuration file \(missing): No such file or directory"])
        XCTAssertEqual(output.standardError.split(separator: "\n").count, 1, output.standardError)
        XCTAssertFalse(output.standardError.contains("NSCocoaErrorDomain"), output.standardError)
        let folder = try CommandRunner.run(["process", "--config", directory.path], input: "")
        assertUsageError(folder, mentions: ["Is a directory"])
    }

    /// `richpush ARGUMENTS <(cat FILE)` through bash, the way a shell user passes a FIFO.
    private func runWithProcessSubstitution(_ arguments: [String], file: URL) throws -> CommandRunner.Output {
        let process = CommandRunner.makeProcess([], environment: [:], workingDirectory: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")   // bash is Essential in Debian
        process.arguments = ["bash", "-c", #"exec "$0" "$@" <(cat "$FIFO_SOURCE")"#, CommandRunner.executable.path] + arguments
        process.environment?["FIFO_SOURCE"] = file.path
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let errorData = LockedData()
        let errorReader = Thread { errorData.set(errors.fileHandleForReading.readDataToEndOfFile()) }
        errorReader.start()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let errorBytes = try errorData.wait(for: "standard error of bash running richpush")
        return CommandRunner.Output(
            status: process.terminationStatus, standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorBytes, as: UTF8.self))
    }

    func testFIFOsAreReadAsStreams() throws {
        let document = directory.appendingPathComponent("push.json")
        try Data(#"{"aps":{"alert":{"title":"T","body":"B"}}}"#.utf8).write(to: document)
        let validate = try runWithProcessSubstitution(["validate", "--no-fetch", "--format", "json"], file: document)
        XCTAssertEqual(validate.status, 0, validate.standardError)
        XCTAssertTrue(validate.standardOutput.contains(#""status" : "passthrough""#) || validate.standardOutput.contains(#""status": "passthrough""#),
                      validate.standardOutput)

        let urls = directory.appendingPathComponent("urls.txt")
        try Data("# nothing to fetch\n".utf8).write(to: urls)
        let prewarm = try runWithProcessSubstitution(
            ["prewarm", "--urls", "--cache-dir", directory.appendingPathComponent("cache").path], file: urls)
        XCTAssertEqual(prewarm.status, 0, prewarm.standardError)
        XCTAssertFalse(prewarm.standardError.contains("permission"), prewarm.standardError)
    }

    func testAMisspeltEnvironmentVariableIsAUsageError() throws {
        assertUsageError(
            try CommandRunner.run(["process"], input: "", environment: ["RICHPUSH_CONCURENCY": "4"]),
            mentions: ["RICHPUSH_CONCURENCY", "did you mean RICHPUSH_CONCURRENCY?"])
        let unrelated = try CommandRunner.run(["process"], input: "", environment: ["RICHPUSH_WHATEVER_THIS_IS": "1"])
        assertUsageError(unrelated, mentions: ["RICHPUSH_WHATEVER_THIS_IS"])
        XCTAssertFalse(unrelated.standardError.contains("did you mean"), unrelated.standardError)
        // One environment serves every command: serve's RICHPUSH_LISTEN is not a mistake for process.
        let shared = try CommandRunner.run(["process"], input: "", environment: ["RICHPUSH_LISTEN": "127.0.0.1:9000"])
        XCTAssertEqual(shared.status, 0, shared.standardError)
    }

    func testCacheGCExitStatusesAreDistinctAndDocumented() throws {
        let help = try CommandRunner.run(["cache", "--help"]).standardOutput
        XCTAssertTrue(help.contains("Exit status:"), help)
        for status in ["0 ", "1 ", "2 ", "3 "] { XCTAssertTrue(help.contains("\n  \(status)"), help) }
        let missing = directory.appendingPathComponent("absent").path
        let gc = try CommandRunner.run(["cache", "gc", "--max-bytes", "1GB", "--cache-dir", missing])
        XCTAssertEqual(gc.status, 3, gc.standardError)
        let empty = directory.appendingPathComponent("cache")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        XCTAssertEqual(try CommandRunner.run(["cache", "gc", "--max-bytes", "1GB", "--cache-dir", empty.path]).status, 0)
    }
}
