import Foundation
import XCTest
import TestSupport

/// 200 concurrent jobs whose media are decompression bombs and oversize files: all rejected, memory stays small.
final class HostileInputTests: XCTestCase {
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
