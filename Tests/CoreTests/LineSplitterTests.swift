import Foundation
import XCTest
@testable import RichPushCore

/// The one line rule of every input path, fed in every chunking.
final class LineSplitterTests: XCTestCase {
    private func split(_ text: String, limit: Int = 100, chunk: Int) -> [String] {
        var splitter = LineSplitter(maximumLineBytes: limit)
        var lines: [String] = []
        let bytes = Array(text.utf8)
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + chunk)
            _ = splitter.feed(bytes[start..<end]) { lines.append(String(decoding: $0, as: UTF8.self)); return true }
            start = end
        }
        splitter.finish { lines.append(String(decoding: $0, as: UTF8.self)); return true }
        return lines
    }

    func testLinesAreTheSameWhateverTheChunks() {
        let text = "a\r\n\nbc\n" + String(repeating: "x", count: 250) + "\nlast"
        for chunk in [1, 2, 3, 7, 64, 1000] {
            let lines = split(text, chunk: chunk)
            XCTAssertEqual(lines.count, 5, "chunk \(chunk)")
            XCTAssertEqual(Array(lines.prefix(3)), ["a", "", "bc"], "chunk \(chunk)")
            XCTAssertEqual(lines[3], String(repeating: "x", count: 101), "a long line is cut to the limit plus one")
            XCTAssertEqual(lines[4], "last", "a last line without a newline is a line")
        }
        XCTAssertEqual(split("one\n", chunk: 2), ["one"], "a final newline starts no line")
        XCTAssertEqual(split("", chunk: 2), [])
        XCTAssertEqual(LineSplitter.lines(of: Data("p\nq".utf8), maximumLineBytes: 10).count, 2)
    }

    func testEmitCanStopTheScan() {
        var splitter = LineSplitter(maximumLineBytes: 10)
        var seen = 0
        let finished = splitter.feed(Data("a\nb\nc\n".utf8)) { _ in seen += 1; return seen < 2 }
        XCTAssertFalse(finished)
        XCTAssertEqual(seen, 2)
    }
}
