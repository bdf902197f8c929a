import Foundation
import XCTest
@testable import RichPushCore

final class JSONSerializerTests: XCTestCase {
    /// `compactByteCount` counts what `serialized()` writes, escapes, empty containers and non-ASCII text included.
    func testCompactByteCountIsTheSerializedSize() throws {
        var generator = SystemRandomNumberGenerator()
        let texts = ["", "plain", "quote \" and \\ backslash", "line\nbreak\ttab\r\u{08}\u{0C}", "\u{01}\u{1F}\u{7F}",
                     "é ✓ 🎉", "/slash/"]
        func randomValue(depth: Int) -> JSONValue {
            switch Int.random(in: 0..<(depth > 3 ? 4 : 6), using: &generator) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &generator))
            case 2: return .number(String(Int.random(in: -1000...1000, using: &generator)))
            case 3: return .string(texts.randomElement(using: &generator)!)
            case 4: return .array((0..<Int.random(in: 0...4, using: &generator)).map { _ in randomValue(depth: depth + 1) })
            default:
                return .object(JSONObject((0..<Int.random(in: 0...4, using: &generator)).map { index in
                    (texts.randomElement(using: &generator)! + String(index), randomValue(depth: depth + 1))
                }))
            }
        }
        for _ in 0..<2_000 {
            let value = randomValue(depth: 0)
            XCTAssertEqual(value.compactByteCount, value.serialized().count, "\(value)")
        }
        let payload = try JSONParser.parse(Data(#"{"aps":{"alert":{"title":"T\"1","body":"a\nb"},"mutable-content":1},"k":[],"o":{}}"#.utf8))
        XCTAssertEqual(payload.compactByteCount, payload.serialized().count)
    }

    /// Strings are scanned eight bytes at a time: an escape at any offset of a word, beside non-ASCII bytes and runs
    /// of plain text, is written as the byte-by-byte rule writes it, counted, and read back as the same string.
    func testEveryEscapeIsWrittenWhereverItFallsInAWord() throws {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", "Z", "/", " ", "~", "\u{7F}", "\"", "\\", "\n", "\r", "\t", "\u{08}", "\u{0C}", "\u{00}", "\u{01}",
                      "\u{1F}", "é", "✓", "🎉", "https://cdn.example.com/x.jpg"]
        func expected(_ text: String) -> String {
            var written = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": written += "\\\""
                case "\\": written += "\\\\"
                case "\n": written += "\\n"
                case "\r": written += "\\r"
                case "\t": written += "\\t"
                case "\u{08}": written += "\\b"
                case "\u{0C}": written += "\\f"
                case let control where control.value < 0x20: written += String(format: "\\u%04x", control.value)
                default: written.unicodeScalars.append(scalar)
                }
            }
            return written + "\""
        }
        for length in 0..<40 {
            for _ in 0..<50 {
                let text = (0..<length).map { _ in pieces.randomElement(using: &generator)! }.joined()
                let value = JSONValue.string(text)
                let data = value.serialized()
                XCTAssertEqual(String(decoding: data, as: UTF8.self), expected(text))
                XCTAssertEqual(value.compactByteCount, data.count)
                XCTAssertEqual(try JSONParser.parse(data), value)
            }
        }
    }
}
