import Foundation
import XCTest

final class ValidateCommandTests: XCTestCase {
    var temporaryDirectory: URL!

    override func setUpWithError() throws {
        temporaryDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-validate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temporaryDirectory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: temporaryDirectory)
    }

    private func write(_ name: String, _ text: String) throws -> String {
        let url = temporaryDirectory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    func testValidStoryExitsZeroAndShowsRenderedSizes() throws {
        let file = try write("story.json", """
            {"aps":{"alert":{"title":"Hello","body":"World"}},"pw_stories":{"pages":[{"image":"https://media.example.com/story1.jpg","title":"One","duration":5}]}}
            """)
        let origin = "https://media.example.com/=" + CommandRunner.packageRoot.appendingPathComponent("Fixtures/media").path
        let output = try CommandRunner.run([
            "validate", "--local-origin", origin, "--cache-dir", temporaryDirectory.appendingPathComponent("cache").path, file,
        ])
        XCTAssertEqual(output.status, 0, output.standardOutput + output.standardError)
        XCTAssertTrue(output.standardOutput.contains("1080x1620"), output.standardOutput)
        XCTAssertTrue(output.standardOutput.contains("/ 4096 bytes"), output.standardOutput)
    }

    func testFindingsCarryPointersAndExitOne() throws {
        let file = try write("bad.json", """
            {"aps":{"alert":{"title":"Hello","body":"World"}},"pw_stories":{"pages":[{"image":"https://media.example.com/story1.jpg","duration":5},{"image":"https://media.example.com/story2.jpg","link":"javascript:alert(1)"}]}}
            """)
        let output = try CommandRunner.run(["validate", "--no-fetch", file])
        XCTAssertEqual(output.status, 1, output.standardOutput)
        XCTAssertTrue(output.standardOutput.contains("/pw_stories/pages/1/link"), output.standardOutput)

        let json = try CommandRunner.run(["validate", "--no-fetch", "--format", "json", file])
        XCTAssertEqual(json.status, 1)
        let reports = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]])
        let results = try XCTUnwrap(reports.first?["results"] as? [[String: Any]])
        let pointers = (results.first?["diagnostics"] as? [[String: Any]])?.compactMap { $0["pointer"] as? String } ?? []
        XCTAssertTrue(pointers.contains("/pw_stories/pages/1/link"), "\(pointers)")
    }

    func testWarningsFailOnlyWithStrict() throws {
        let file = try write("pushfa.json", """
            {"title":"This title is far longer than the thirty-five characters Pushfa allows","body":"Body","platform":"ios"}
            """)
        XCTAssertEqual(try CommandRunner.run(["validate", "--no-fetch", file]).status, 0)
        XCTAssertEqual(try CommandRunner.run(["validate", "--no-fetch", "--strict", file]).status, 1)
    }

    func testUsageMistakesExitTwo() throws {
        XCTAssertEqual(try CommandRunner.run(["validate"]).status, 2)
        XCTAssertEqual(try CommandRunner.run(["validate", "--format", "yaml", "x.json"]).status, 2)
    }

    // `validate` tells authors the truth (issue 17, item 7).

    func testRemovedStoryFailsAndTheReportEndsWithASummary() throws {
        let file = try write("garbage.json", #"{"aps":{"alert":{"title":"Hello","body":"World"}},"pw_stories":"garbage"}"#)
        let output = try CommandRunner.run(["validate", "--no-fetch", file])
        XCTAssertEqual(output.status, 1, output.standardOutput)
        let lines = output.standardOutput.split(separator: "\n")
        XCTAssertEqual(lines.last, "summary: 0 errors, 1 warning, 0 media", output.standardOutput)
        let fine = try write("fine.json", #"{"aps":{"alert":{"title":"Hello","body":"World"}}}"#)
        XCTAssertEqual(try CommandRunner.run(["validate", "--no-fetch", fine]).status, 0)
    }

    func testJSONReportHasFixAndSenderPageNumbers() throws {
        let file = try write("story.json", #"{"aps":{"alert":{"title":"Hello","body":"World"}},"pw_stories":{"pages":[{"title":"no image"},{"image":"https://media.example.com/story1.jpg","link":"javascript:alert(1)"}]}}"#)
        let output = try CommandRunner.run(["validate", "--no-fetch", "--format", "json", "--link-scheme", "myapp", file])
        XCTAssertEqual(output.status, 1)
        XCTAssertTrue(output.standardError.contains("summary: 2 errors, 0 warnings, 1 media"), output.standardError)
        let reports = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [[String: Any]])
        let result = try XCTUnwrap((reports.first?["results"] as? [[String: Any]])?.first)
        let media = try XCTUnwrap(result["media"] as? [[String: Any]])
        XCTAssertEqual(media.first?["pointer"] as? String, "/pw_stories/pages/1/image", "the author's page number")
        let diagnostics = try XCTUnwrap(result["diagnostics"] as? [[String: Any]])
        let link = try XCTUnwrap(diagnostics.first { $0["code"] as? String == "story_link_scheme_not_allowed" })
        XCTAssertEqual(link["pointer"] as? String, "/pw_stories/pages/1/link")
        XCTAssertEqual(link["fix"] as? String, "Use https://, http:// or an app scheme written myapp://.")
        let narrowed = try XCTUnwrap(try write("app.json", #"{"aps":{"alert":"x"},"pw_stories":{"pages":[{"image":"https://media.example.com/story1.jpg","link":"otherapp://x"}]}}"#))
        let text = try CommandRunner.run(["validate", "--no-fetch", "--link-scheme", "myapp", narrowed])
        XCTAssertTrue(text.standardOutput.contains("--link-scheme"), "messages name the CLI flag: \(text.standardOutput)")
        XCTAssertFalse(text.standardOutput.contains("allowedLinkSchemes"), text.standardOutput)
    }
}
