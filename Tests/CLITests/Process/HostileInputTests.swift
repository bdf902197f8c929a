import Foundation
import XCTest
import TestSupport

/// Hostile input through `process`: documents that are not JSON, and media that are decompression bombs or oversize.
final class HostileInputTests: XCTestCase {
    /// JSONTestSuite's one-line documents (Fixtures/conformance/json), one per line: NUL and invalid UTF-8 bytes,
    /// byte order marks in the middle of the input, 100,000 opening brackets. Each gets exactly one result line, in
    /// order, that says why: every document JSON forbids is `invalid_json` (with its line and column, or "empty"), and
    /// no document JSON allows is.
    func testEveryLineOfJSONTestSuiteGetsOneResultThatSaysWhy() throws {
        var names: [String] = [], input = Data()
        for document in try JSONTestSuite.documents("") {
            var bytes = document.bytes
            if bytes.last == 0x0A { bytes.removeLast() }
            // A document of several lines would be several jobs.
            guard !bytes.contains(0x0A), !bytes.contains(0x0D) else { continue }
            names.append(document.name)
            input += bytes + [0x0A]
        }
        XCTAssertGreaterThan(names.count, 300)
        let file = try makeTemporaryDirectory("suite").appendingPathComponent("suite.ndjson")
        try input.write(to: file)
        let output = try CommandRunner.run(["process", "--cache-dir", file.deletingLastPathComponent().appendingPathComponent("cache").path, file.path])
        XCTAssertEqual(output.status, 0, output.standardError)
        let lines = output.lines
        XCTAssertEqual(lines.count, names.count)
        for (index, (name, line)) in zip(names, lines).enumerated() {
            let result = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], name)
            XCTAssertEqual(result["line"] as? Int, index + 1, name)
            let errors = (result["diagnostics"] as? [[String: Any]] ?? []).filter { $0["severity"] as? String == "error" }
            let invalid = errors.first { $0["code"] as? String == "invalid_json" }
            if name.hasPrefix("n_") {
                XCTAssertEqual(result["status"] as? String, "rejected", name)
                // Where the document went wrong, or that there is nothing (a blank line, a byte order mark alone).
                let message = try XCTUnwrap(invalid?["message"] as? String, "\(name): \(line)")
                XCTAssertTrue(message.contains("column") || message.contains("empty"), "\(name): \(line)")
            } else if name.hasPrefix("y_") {
                XCTAssertNil(invalid, "\(name): \(line)")
                XCTAssertFalse(errors.isEmpty && result["status"] as? String == "rejected", "\(name): rejected without a reason")
            }
        }
    }

    /// 200 concurrent jobs whose media are decompression bombs and oversize files: all rejected, memory stays small.
    func testBombsAndOversizeFilesAreRejectedWithinMemoryBound() throws {
        let directory = try makeTemporaryDirectory("hostile")
        let media = directory.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)

        // A PNG header claiming 200000 x 200000 (IHDR only: the probe must stop it before any pixel).
        let png = PNGFile.signature + PNGFile.chunk("IHDR", PNGFile.header(width: 200_000, height: 200_000, colourType: 2))
        try Data(png).write(to: media.appendingPathComponent("ihdr-bomb.png"))
        // A JPEG frame claiming 65500 x 65500.
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xC0, 0, 17, 8, 0xFF, 0xDC, 0xFF, 0xDC, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1, 0xFF, 0xD9]
        try Data(jpeg).write(to: media.appendingPathComponent("sof-bomb.jpg"))
        // A real 30000 x 30000 1-bit PNG of a few hundred KB.
        try FileManager.default.copyItem(
            at: packageRoot.appendingPathComponent("Fixtures/imaging/bomb_30000_1bit.png"),
            to: media.appendingPathComponent("one-bit-bomb.png"))
        // An 11 MB file, over the 10 MB source cap.
        try Data(count: 11 * 1024 * 1024).write(to: media.appendingPathComponent("oversize.jpg"))

        let expected = ["ihdr-bomb.png": "side_too_long", "sof-bomb.jpg": "side_too_long",
                        "one-bit-bomb.png": "side_too_long", "oversize.jpg": "too_large"]
        let names = expected.keys.sorted()
        var input = ""
        for index in 0..<200 {
            // A query makes every job a distinct source, so none is answered from a negative cache entry.
            let url = "https://hostile.example/\(names[index % names.count])?n=\(index)"
            input += #"{"id":"h\#(index)","payload":{"aps":{"alert":{"title":"T","body":"B"}},"image_url":"\#(url)"}}"# + "\n"
        }
        let output = try CommandRunner.run([
            "process", "--concurrency", "200", "--local-origin", "https://hostile.example/=\(media.path)",
            "--cache-dir", directory.appendingPathComponent("cache").path,
        ], input: input)
        XCTAssertEqual(output.status, 0, output.standardError)

        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        XCTAssertLessThan(usage.ru_maxrss / 1024, 300, "peak RSS of the worker in MB")

        let lines = output.lines
        XCTAssertEqual(lines.count, 200)
        for (index, line) in lines.enumerated() {
            let result = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            XCTAssertEqual(result["status"] as? String, "fallback", line)
            let media = try XCTUnwrap((result["media"] as? [[String: Any]])?.first)
            let code = (media["error"] as? [String: Any])?["code"] as? String
            XCTAssertEqual(code, expected[names[index % names.count]], line)
        }
    }
}
