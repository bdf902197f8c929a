import Foundation
import XCTest
@testable import RichPushCore

final class JSONWriterTests: XCTestCase {
    /// Walking a tree with the writer's calls (begin, key, scalar, end) writes the bytes `serialized()` writes:
    /// commas between members and elements only, nested and empty containers included; a subtree handed over
    /// whole (`value`) is written the same way.
    func testWritingATreeCallByCallGivesItsSerializedBytes() {
        var generator = SystemRandomNumberGenerator()
        func randomValue(depth: Int) -> JSONValue {
            switch Int.random(in: 0..<(depth > 3 ? 5 : 7), using: &generator) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &generator))
            case 2: return .number(String(Int.random(in: -1000...1000, using: &generator)))
            case 3: return .number("75.5")
            case 4: return .string(["", "a \"quoted\" word", "é\n✓"].randomElement(using: &generator)!)
            case 5: return .array((0..<Int.random(in: 0...3, using: &generator)).map { _ in randomValue(depth: depth + 1) })
            default:
                return .object(JSONObject((0..<Int.random(in: 0...3, using: &generator)).map { index in
                    ("key\(index)", randomValue(depth: depth + 1))
                }))
            }
        }
        func write(_ value: JSONValue, to writer: inout JSONWriter, whole: Bool) {
            switch value {
            case .null: writer.null()
            case .number(let text): if let integer = Int(text) { writer.number(integer) } else { writer.number(text: text) }
            case .string(let text): writer.string(text)
            case .array(let elements) where !whole:
                writer.beginArray()
                for element in elements { write(element, to: &writer, whole: Bool.random(using: &generator)) }
                writer.endArray()
            case .object(let object) where !whole:
                writer.beginObject()
                for (key, member) in object {
                    writer.key(text: key)
                    write(member, to: &writer, whole: Bool.random(using: &generator))
                }
                writer.endObject()
            default: writer.value(value)
            }
        }
        for _ in 0..<2_000 {
            let value = randomValue(depth: 0)
            var writer = JSONWriter()
            write(value, to: &writer, whole: false)
            XCTAssertEqual(Data(writer.bytes), value.serialized(), "\(value)")
        }
    }

    /// Fixed keys are copied as they are, beside members written in one call.
    func testFixedKeysAndOneCallMembers() {
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("id", "x\"y")
        writer.member("n", -3)
        writer.key("list")
        writer.beginArray()
        writer.endArray()
        writer.key("empty")
        writer.beginObject()
        writer.endObject()
        writer.endObject()
        XCTAssertEqual(String(decoding: writer.bytes, as: UTF8.self), #"{"id":"x\"y","n":-3,"list":[],"empty":{}}"#)
    }

    /// Integers are written as Swift prints them, at the edges too: zero, powers of ten, both ends of `Int`.
    func testIntegersAtTheirEdges() {
        for value in [0, 7, -7, 10, -10, 100, 1_000_000_007, Int.max, Int.min, Int.min + 1] {
            var writer = JSONWriter()
            writer.number(value)
            XCTAssertEqual(String(decoding: writer.bytes, as: UTF8.self), String(value))
        }
    }
}
