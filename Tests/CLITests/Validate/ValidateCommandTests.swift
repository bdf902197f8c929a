import Foundation
import XCTest
import TestSupport

final class ValidateCommandTests: XCTestCase {
    var temporaryDirectory: URL!

    override func setUpWithError() throws {
        temporaryDirectory = try makeTemporaryDirectory("validate")
    }

    override func tearDownWithError() throws {
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
        let origin = "https://media.example.com/=" + packageRoot.appendingPathComponent("Fixtures/media").path
        let output = try CommandRunner.run([
            "validate", "--local-origin", origin, "--cache-dir", temporaryDirectory.appendingPathComponent("cache").path,
            "--quality-target", "80", file,
        ])
        XCTAssertEqual(output.status, 0, output.standardOutput + output.standardError)
        XCTAssertTrue(output.standardOutput.contains("1080x1620"), output.standardOutput)
        XCTAssertTrue(output.standardOutput.contains("/ 4096 bytes"), output.standardOutput)
        // The page was searched for the quality target of 80 and says what it reached.
        let score = try XCTUnwrap(output.standardOutput.range(of: #"SSIMULACRA2 [0-9]+\.[0-9]"#, options: .regularExpression),
                                  output.standardOutput)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(Double(output.standardOutput[score].dropFirst("SSIMULACRA2 ".count))), 80)
    }

    /// A cross-platform request: validate reports each Android field with its platform, rendition and size, and a
    /// failing one by its pointer in the request.
    func testAndroidFieldsAreReportedWithTheirRendition() throws {
        let file = try write("onesignal.json", """
            {"app_id":"a","contents":{"en":"Hi"},"ios_attachments":{"p":"https://media.example.com/hero.jpg"},
             "big_picture":"https://media.example.com/hero.jpg","large_icon":"https://media.example.com/gone.png"}
            """)
        let origin = "https://media.example.com/=" + packageRoot.appendingPathComponent("Fixtures/media").path
        let output = try CommandRunner.run([
            "validate", "--local-origin", origin, "--cache-dir", temporaryDirectory.appendingPathComponent("cache").path, file,
        ])
        XCTAssertEqual(output.status, 1, "a failed image fails validation: " + output.standardOutput)
        XCTAssertTrue(output.standardOutput.contains("media   /att/p (ios attachment): https://media.example.com/hero.jpg"),
                      output.standardOutput)
        XCTAssertTrue(output.standardOutput.contains("media   /big_picture (android big_picture): https://media.example.com/hero.jpg"),
                      output.standardOutput)
        XCTAssertTrue(output.standardOutput.contains("1440x1080"), output.standardOutput)
        XCTAssertTrue(output.standardOutput.contains("/large_icon: media failed"), output.standardOutput)
    }

    /// The author warnings (issue 28, item 7) reach validate's report with their figures, warn without failing, and
    /// fail with --strict as every warning does.
    func testCropAndUpscaleWarningsNameTheirFigures() throws {
        let file = try write("story.json", """
            {"aps":{"alert":{"title":"Hello","body":"World"}},"pw_stories":{"pages":[{"image":"https://media.example.com/hero.jpg"},{"image":"https://media.example.com/logo.png"}]}}
            """)
        let origin = "https://media.example.com/=" + packageRoot.appendingPathComponent("Fixtures/media").path
        let arguments = ["validate", "--local-origin", origin, "--cache-dir", temporaryDirectory.appendingPathComponent("cache").path]
        let output = try CommandRunner.run(arguments + [file])
        XCTAssertEqual(output.status, 0, output.standardOutput + output.standardError)
        let text = output.standardOutput
        XCTAssertTrue(text.contains("/pw_stories/pages/0/image: the story variant's 2:3 cover crop cuts away 50% of this 1600×1200 image: only its middle 800×1200 is shown [story_crop_heavy]"), text)
        XCTAssertTrue(text.contains("/pw_stories/pages/1/image: the 500×500 image is 3.2× smaller than the story variant's 1080×1620, so the phone blows it up and it looks blurred [image_upscaled]"), text)
        XCTAssertTrue(text.contains("summary: 0 errors, 2 warnings, 2 media"), text)
        XCTAssertEqual(try CommandRunner.run(arguments + ["--strict", file]).status, 1)
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

    /// Ids, pointers, messages and URLs come from the input: ESC, CR and LF in them must reach the terminal as
    /// visible escapes, never as control characters that clear the screen or forge a `summary:` line.
    func testTextReportEscapesControlCharacters() throws {
        let forged = #"\r\nsummary: 0 errors, 0 warnings, 0 media\u001b[2J\u009b31m"#
        let file = try write("hostile.json", """
            {"id":"job\(forged)","payload":{"aps":{"alert":{"title":"T","body":"B"}},"attachment":"https://media.example.com/a\(forged).jpg"},"k\(forged)":1,"k\(forged)":2}
            """)
        let output = try CommandRunner.run(["validate", "--no-fetch", file])
        let text = output.standardOutput
        XCTAssertFalse(text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x0D || $0.value == 0x9B }, text)
        let summaries = text.components(separatedBy: .newlines).filter { $0.hasPrefix("summary:") }
        XCTAssertEqual(summaries.count, 1, text)
        XCTAssertTrue(text.contains(#"job\r\nsummary: 0 errors, 0 warnings, 0 media\u{1B}[2J\u{9B}31m"#), text)
        XCTAssertTrue(text.contains(#"duplicate_key"#), text)
    }

    /// Issue 36: the line separator and the bidirectional controls reach the terminal as visible escapes too, so a
    /// forged line break or a reversed URL cannot be read into the report.
    func testTextReportEscapesLineSeparatorsAndBidirectionalControls() throws {
        let hostile = #"a\u2028summary: ok\u2029b\u202Egpj.exe\u202C\u2066c\u2069\u200F"#
        let file = try write("bidi.json", #"{"id":"job-\#(hostile)","payload":{"aps":{"alert":{"title":"T","body":"B"}},"attachment":"https://media.example.com/\#(hostile).jpg"}}"#)
        let text = try CommandRunner.run(["validate", "--no-fetch", file]).standardOutput
        let raw: [UInt32] = [0x2028, 0x2029, 0x202E, 0x202C, 0x2066, 0x2069, 0x200F]
        XCTAssertFalse(text.unicodeScalars.contains { raw.contains($0.value) }, text)
        XCTAssertTrue(text.contains(#"job-a\u{2028}summary: ok\u{2029}b\u{202E}gpj.exe\u{202C}\u{2066}c\u{2069}\u{200F}"#), text)
    }

    func testWarningsFailOnlyWithStrict() throws {
        let file = try write("pushfa.json", """
            {"title":"This title is far longer than the thirty-five characters Pushfa allows","body":"Body","platform":"ios"}
            """)
        XCTAssertEqual(try CommandRunner.run(["validate", "--no-fetch", file]).status, 0)
        XCTAssertEqual(try CommandRunner.run(["validate", "--no-fetch", "--strict", file]).status, 1)
    }

    func testHTMLPageIsOneSelfContainedFile() throws {
        let file = try write("story.json", """
            {"aps":{"alert":{"title":"Hello","body":"World"}},"pw_stories":{"pages":[{"image":"https://media.example.com/story1.jpg?sig=SECRET","title":"One","duration":5},{"image":"https://media.example.com/broken.jpg","title":"Two"}]}}
            """)
        let origin = "https://media.example.com/=" + packageRoot.appendingPathComponent("Fixtures/media").path
        let html = temporaryDirectory.appendingPathComponent("preview.html")
        let output = try CommandRunner.run([
            "validate", "--local-origin", origin, "--cache-dir", temporaryDirectory.appendingPathComponent("cache").path,
            "--html", html.path, file,
        ])
        XCTAssertEqual(output.status, 1, "the broken page is still a finding: " + output.standardError)
        XCTAssertTrue(output.standardOutput.contains("story_page_dropped"), "the text report is still printed")
        let page = try String(contentsOf: html, encoding: .utf8)
        XCTAssertFalse(page.contains("SECRET"), "no signed query string in the page")
        XCTAssertFalse(page.contains("src=\"http"), "nothing is loaded from the network")
        let document = try Self.embeddedDocument(page)
        let media = try XCTUnwrap(((document["reports"] as? [[String: Any]])?.first?["results"] as? [[String: Any]])?.first?["media"] as? [[String: Any]])
        let images = try XCTUnwrap(document["images"] as? [String: String])
        XCTAssertEqual(images.count, 1)
        let rendered = try XCTUnwrap(media.first { $0["status"] as? String == "rendered" })
        let image = try XCTUnwrap(images[try XCTUnwrap(rendered["cached_url"] as? String)])
        let bytes = try XCTUnwrap(Data(base64Encoded: String(image.dropFirst("data:image/jpeg;base64,".count))))
        XCTAssertEqual(bytes.count, rendered["bytes"] as? Int)

        // Without fetching there is nothing to inline: the page shows placeholders, never the original URLs' images.
        let structureOnly = temporaryDirectory.appendingPathComponent("structure.html")
        XCTAssertEqual(try CommandRunner.run(["validate", "--no-fetch", "--html", structureOnly.path, file]).status, 0)
        let structurePage = try String(contentsOf: structureOnly, encoding: .utf8)
        XCTAssertFalse(structurePage.contains("SECRET"), "the unfetched source is redacted too")
        let structureDocument = try Self.embeddedDocument(structurePage)
        XCTAssertEqual(structureDocument["fetched"] as? Bool, false)
        XCTAssertEqual((structureDocument["images"] as? [String: String])?.count, 0)

        let unwritable = try CommandRunner.run(["validate", "--no-fetch", "--html", "/nonexistent-directory/x.html", file])
        XCTAssertEqual(unwritable.status, 1)
        XCTAssertTrue(unwritable.standardError.contains("cannot write"), unwritable.standardError)
    }

    /// The `StoryPreview` document inside the page's `preview-data` script element.
    static func embeddedDocument(_ page: String) throws -> [String: Any] {
        let start = try XCTUnwrap(page.range(of: #"<script type="application/json" id="preview-data">"#))
        let end = try XCTUnwrap(page.range(of: "</script>", range: start.upperBound..<page.endIndex))
        let text = String(page[start.upperBound..<end.lowerBound])
        XCTAssertFalse(text.contains("<"), "no markup inside the embedded document")
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
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
        XCTAssertEqual(link["fix"] as? String, "Use a URL with a scheme (https:, tel:, myapp:...) other than javascript:, data:, file:, vbscript:, about: or blob:.")
        let narrowed = try XCTUnwrap(try write("app.json", #"{"aps":{"alert":"x"},"pw_stories":{"pages":[{"image":"https://media.example.com/story1.jpg","link":"otherapp://x"}]}}"#))
        let text = try CommandRunner.run(["validate", "--no-fetch", "--link-scheme", "myapp", narrowed])
        XCTAssertTrue(text.standardOutput.contains("--link-scheme"), "messages name the CLI flag: \(text.standardOutput)")
        XCTAssertFalse(text.standardOutput.contains("allowedLinkSchemes"), text.standardOutput)
    }
}
