import Foundation
import TestSupport
import XCTest

/// README's examples run as written: every fenced shell block marked `<!-- runnable -->` (on the line before its
/// fence) is run, command by command, in a fresh folder holding a copy of `Fixtures/`, with the built binary first
/// on `PATH`; each must exit 0.
final class ReadmeExampleTests: XCTestCase {
    static let marker = "<!-- runnable -->"

    /// The commands of the marked blocks: comment lines dropped, backslash continuations joined, and the
    /// `.build/<configuration>/richpush` spellings turned into `richpush` (the binary on `PATH`).
    static func runnableCommands(in readme: String) -> [String] {
        var commands: [String] = []
        var lines = readme.split(separator: "\n", omittingEmptySubsequences: false).makeIterator()
        while let line = lines.next() {
            guard line.trimmingCharacters(in: .whitespaces) == marker else { continue }
            guard let fence = lines.next(), fence.hasPrefix("```sh") || fence.hasPrefix("```bash") else { continue }
            var pending = ""
            while let body = lines.next(), !body.hasPrefix("```") {
                let text = body.trimmingCharacters(in: .whitespaces)
                if text.isEmpty || text.hasPrefix("#") { continue }
                if text.hasSuffix("\\") {
                    pending += text.dropLast().trimmingCharacters(in: .whitespaces) + " "
                    continue
                }
                let command = (pending + text).replacingOccurrences(
                    of: #"\.build/(debug|release)/richpush"#, with: "richpush", options: .regularExpression)
                commands.append(command)
                pending = ""
            }
        }
        return commands
    }

    func testMarkedShellBlocksRunAsWritten() throws {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let commands = Self.runnableCommands(in: readme)
        XCTAssertFalse(commands.isEmpty, "README marks no shell block \(Self.marker)")
        let directory = try makeTemporaryDirectory("readme")
        try FileManager.default.copyItem(
            at: packageRoot.appendingPathComponent("Fixtures"), to: directory.appendingPathComponent("Fixtures"))
        let binaries = CommandRunner.executable.deletingLastPathComponent().path
        for command in commands {
            XCTAssertTrue(command.hasPrefix("richpush "), "a runnable example runs richpush, not the machine's setup: \(command)")
            let (status, output) = try runTool("/bin/sh", ["-c", "PATH=\"\(binaries):$PATH\" && " + command], in: directory)
            XCTAssertEqual(status, 0, "\(command)\n\(output)")
        }
        // The examples go on from one another: the first one's renders are what `cache stats` then reports.
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.appendingPathComponent("richpush-cache").path))
    }

    func testMarkedBlocksAreParsedWithContinuationsAndCommentsAndBuildPaths() {
        let readme = """
            ```sh
            richpush not-marked
            ```
            \(Self.marker)
            ```sh
            # a comment
            .build/release/richpush process \\
              --cache-dir c jobs.ndjson
            richpush cache stats
            ```
            """
        XCTAssertEqual(Self.runnableCommands(in: readme), [
            "richpush process --cache-dir c jobs.ndjson", "richpush cache stats",
        ])
    }
}
