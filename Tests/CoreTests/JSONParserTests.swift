import Foundation
import XCTest
@testable import RichPushCore

final class JSONParserTests: XCTestCase {
    private func parse(_ text: String) throws -> JSONValue {
        try JSONParser.parse(Data(text.utf8))
    }

    func testRoundTripKeepsKeyOrderAndNumberText() throws {
        let text = #"{"z":1,"a":{"y":[1.50,2e10,-0,12345678901234567890123456789],"b":null},"m":true,"k":"x/y"}"#
        let value = try parse(text)
        XCTAssertEqual(String(decoding: value.serialized(), as: UTF8.self), text)
        XCTAssertEqual(value.value(at: "/a/y/3"), .number("12345678901234567890123456789"))
        XCTAssertEqual(value.value(at: "/a/y/0"), .number("1.50"))
    }

    func testSerializerEscapesOnlyWhatIsNeeded() throws {
        let value = JSONValue.string("a\"b\\c\nd\u{01}/é😀")
        XCTAssertEqual(String(decoding: value.serialized(), as: UTF8.self), "\"a\\\"b\\\\c\\nd\\u0001/é😀\"")
    }

    func testEscapesAndSurrogatePairsDecode() throws {
        let value = try parse(#"["\ud83d\ude00","\u00e9","\/","\t"]"#)
        XCTAssertEqual(value, .array([.string("😀"), .string("é"), .string("/"), .string("\t")]))
    }

    func testPrettyOutputParsesBackEqual() throws {
        let value = try parse(#"{"a":[1,{"b":"c"}],"d":{}}"#)
        let pretty = value.serialized(pretty: true)
        XCTAssertTrue(String(decoding: pretty, as: UTF8.self).contains("\n  \"a\": ["))
        XCTAssertEqual(try JSONParser.parse(pretty), value)
    }

    func testMalformedDocumentsGiveLocatedErrors() {
        let cases: [(String, String, Int, Int)] = [
            ("", "json_empty", 0, 0),
            ("{\"a\":1,}", "json_unexpected_character", 1, 8),
            ("{\"a\" 1}", "json_unexpected_character", 1, 6),
            ("{\n  \"a\": tru }", "json_unexpected_character", 2, 11),
            ("[1,2", "json_unexpected_end", 1, 5),
            ("{\"a\":01}", "json_invalid_number", 1, 6),
            ("[1.]", "json_invalid_number", 1, 2),
            ("[NaN]", "json_unexpected_character", 1, 2),
            ("[+1]", "json_unexpected_character", 1, 2),
            ("{\"a\":1} x", "json_trailing_content", 1, 9),
            ("[\"a\u{01}\"]", "json_control_character", 1, 4),
            ("[\"\\x\"]", "json_invalid_escape", 1, 3),
            ("[\"\\ud800\"]", "json_unpaired_surrogate", 1, 3),
            ("[\"\\udc00\\ud800\"]", "json_unpaired_surrogate", 1, 3),
            ("[\"abc", "json_unexpected_end", 1, 6),
            ("{'a':1}", "json_unexpected_character", 1, 2),
        ]
        for (text, code, line, column) in cases {
            do {
                _ = try parse(text)
                XCTFail("accepted \(text)")
            } catch let error as JSONParseError {
                XCTAssertEqual(error.code.rawValue, code, text)
                XCTAssertEqual(error.line, line, text)
                XCTAssertEqual(error.column, column, text)
                XCTAssertFalse(error.description.isEmpty)
            } catch {
                XCTFail("unexpected error \(error)")
            }
        }
    }

    func testInvalidUTF8IsRejected() {
        let cases: [[UInt8]] = [
            [0x22, 0xC3, 0x22],             // truncated 2-byte sequence
            [0x22, 0xC0, 0xAF, 0x22],       // overlong "/"
            [0x22, 0xED, 0xA0, 0x80, 0x22], // encoded surrogate
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], // above U+10FFFF
            [0x22, 0xFF, 0x22],
        ]
        for bytes in cases {
            XCTAssertThrowsError(try JSONParser.parse(Data(bytes))) { error in
                XCTAssertEqual((error as? JSONParseError)?.code, "json_invalid_utf8", "\(bytes)")
            }
        }
    }

    func testDepthLimit() throws {
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        XCTAssertNoThrow(try parse(ok))
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        XCTAssertThrowsError(try parse(deep)) { error in
            guard let error = error as? JSONParseError, case .tooDeep(let limit, let line, let column) = error else {
                return XCTFail("wrong error \(error)")
            }
            XCTAssertEqual(limit, 64)
            XCTAssertEqual(line, 1)
            XCTAssertEqual(column, 65)
        }
        // A hostile document far deeper than the stack could take must fail fast, not crash.
        let hostile = String(repeating: "{\"a\":", count: 100_000)
        XCTAssertThrowsError(try parse(hostile))
    }

    func testDuplicateKeysLastWinsAtFirstPosition() throws {
        let result = try JSONParser.parseReportingDuplicates(Data(#"{"a":1,"b":2,"a":3}"#.utf8))
        XCTAssertEqual(String(decoding: result.value.serialized(), as: UTF8.self), #"{"a":3,"b":2}"#)
        XCTAssertEqual(result.duplicateKeyPointers, ["/a"])
    }

    /// "caf\u{E9}" and "cafe\u{301}" are canonically equivalent, so Swift's `==` calls them equal, but they are
    /// different bytes and two keys to every device parser: both stay, neither is a duplicate, in a small object
    /// (compared member by member) and in a large one (compared through an index), and each is found by its own
    /// bytes only.
    func testCanonicallyEquivalentKeysOfDifferentBytesAreTwoMembers() throws {
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        XCTAssertEqual(composed, decomposed, "the premise: Swift's String equality is canonical equivalence")
        let filler = (0..<20).map { #""k\#($0)":0,"# }.joined()
        for prefix in ["", filler] {
            let text = "{" + prefix + #""caf\u00e9":1,"cafe\u0301":2,"caf\u00e9":3}"#
            let result = try JSONParser.parseReportingDuplicates(Data(text.utf8))
            XCTAssertEqual(result.duplicateKeyPointers, ["/caf\u{E9}"], "only the repeated bytes are a duplicate")
            let object = try XCTUnwrap(result.value.objectValue)
            XCTAssertEqual(object.count, prefix.isEmpty ? 2 : 22)
            XCTAssertEqual(object[composed], .number("3"))
            XCTAssertEqual(object[decomposed], .number("2"))
            XCTAssertEqual(Array(object.keys.suffix(2)).map { Array($0.utf8) }, [Array(composed.utf8), Array(decomposed.utf8)])
            XCTAssertTrue(String(decoding: result.value.serialized(), as: UTF8.self)
                .hasSuffix("\"caf\u{E9}\":3,\"cafe\u{301}\":2}"), "both keys written back as their own bytes")
        }
        var object = JSONObject()
        object[composed] = .number("1")
        XCTAssertNil(object[decomposed])
        object[decomposed] = .number("2")
        XCTAssertEqual(object.count, 2)
        object.remove(composed)
        XCTAssertEqual(object.keys.map { Array($0.utf8) }, [Array(decomposed.utf8)])
        XCTAssertNotEqual(ExactString(composed), ExactString(decomposed))
        XCTAssertEqual(ExactString(composed), ExactString(String(decoding: Array(composed.utf8), as: UTF8.self)))
    }

    func testJSONPointerEscaping() throws {
        let value = try parse(#"{"a/b":{"m~n":[10,20]},"":5}"#)
        XCTAssertEqual(value.value(at: "/a~1b/m~0n/1"), .number("20"))
        XCTAssertEqual(value.value(at: "/"), .number("5"))
        XCTAssertEqual(value.value(at: ""), value)
        XCTAssertNil(value.value(at: "/a~1b/m~0n/01"))
        XCTAssertNil(value.value(at: "/a~1b/m~0n/2"))
        XCTAssertNil(value.value(at: "a"))
        XCTAssertEqual(JSONPointer.escape("a/~b"), "a~1~0b")
        XCTAssertEqual(JSONPointer.unescape("~01"), "~1")
        var mutable = value
        XCTAssertTrue(mutable.setValue(.string("x"), at: "/a~1b/m~0n/0"))
        XCTAssertEqual(mutable.value(at: "/a~1b/m~0n/0"), .string("x"))
        XCTAssertFalse(mutable.setValue(.null, at: "/missing/child"))
    }

    /// The walk SenderRequest uses: into JSON text (which stays text), creating missing objects, and a removal of
    /// what is not there is a no-op rather than a failure.
    func testPointerWalkThroughJSONTextAndCreatingObjects() throws {
        var value = try parse(#"{"data":"{\"u\":{\"l\":\"https://a\"}}","n":1}"#)
        let through: JSONValue.PointerWalk = [.throughJSONText, .creatingObjects]
        XCTAssertNil(value.value(at: ["data", "u", "l"]))
        XCTAssertEqual(value.value(at: ["data", "u", "l"], walk: through), .string("https://a"))
        XCTAssertTrue(value.setValue(.string("https://b"), at: ["data", "u", "l"], walk: through))
        XCTAssertEqual(value.value(at: "/data"), .string(#"{"u":{"l":"https://b"}}"#))
        XCTAssertFalse(value.setValue(.bool(true), at: ["aps", "mutable-content"]))
        XCTAssertTrue(value.setValue(.bool(true), at: ["aps", "mutable-content"], walk: through))
        XCTAssertEqual(value.value(at: "/aps/mutable-content"), .bool(true))
        let before = value
        XCTAssertTrue(value.setValue(nil, at: ["missing", "child"], walk: through))
        XCTAssertEqual(value, before)
        XCTAssertFalse(value.setValue(.null, at: ["n", "child"], walk: through), "a number is no container")
    }

    /// A write changes the tree in place yet keeps value semantics: a copy taken before it is untouched, and a write
    /// that fails deep down (a missing parent, an index past the end) leaves every level as it was.
    func testPointerWriteKeepsCopiesAndUndoesNothingOnFailure() throws {
        var value = try parse(#"{"a":{"b":[{"c":1},{"c":2}]},"d":"x"}"#)
        let copy = value
        XCTAssertTrue(value.setValue(.number("3"), at: "/a/b/1/c"))
        XCTAssertEqual(value.value(at: "/a/b/1/c"), .number("3"))
        XCTAssertEqual(copy.value(at: "/a/b/1/c"), .number("2"), "the copy shares no change")
        let before = value
        XCTAssertFalse(value.setValue(.null, at: "/a/b/5/c"))
        XCTAssertFalse(value.setValue(.null, at: "/a/b/0/c/deeper"))
        XCTAssertFalse(value.setValue(.null, at: "/a/missing/c"))
        XCTAssertEqual(value, before)
        XCTAssertTrue(value.setValue(nil, at: "/a/b/0"))
        XCTAssertEqual(value, try parse(#"{"a":{"b":[{"c":3}]},"d":"x"}"#))
        XCTAssertTrue(value.setValue(.string("y"), at: ["a", "e", "f"], walk: .creatingObjects))
        XCTAssertEqual(value, try parse(#"{"a":{"b":[{"c":3}],"e":{"f":"y"}},"d":"x"}"#))
    }

    func testWrongTopLevelTypesStillParse() throws {
        XCTAssertEqual(try parse(" 42 "), .number("42"))
        XCTAssertEqual(try parse("\u{FEFF}{}"), .object(JSONObject()))
    }

    func testLargeDocumentsParseInLinearTime() throws {
        let members = (0..<20_000).map { #""key\#($0)":{"n":\#($0).5,"s":"välue \#($0)","a":[true,null]}"# }
        let data = Data(("{" + members.joined(separator: ",") + "}").utf8)
        let clock = ContinuousClock()
        let start = clock.now
        let value = try JSONParser.parse(data)
        let output = value.serialized()
        let elapsed = clock.now - start
        XCTAssertEqual(output, data)
        XCTAssertLessThan(elapsed, .seconds(5), "\(data.count) bytes took \(elapsed)")
    }
}

final class JSONObjectTests: XCTestCase {
    func testOrderedObjectOperations() {
        var object: JSONObject = ["b": .number("1"), "a": .number("2")]
        XCTAssertEqual(object.keys, ["b", "a"])
        object["c"] = .null
        object["b"] = .string("x")
        XCTAssertEqual(object.keys, ["b", "a", "c"], "replacing keeps the position")
        object.set(.bool(true), for: "d", after: "b")
        XCTAssertEqual(object.keys, ["b", "d", "a", "c"])
        XCTAssertEqual(object.remove("a"), .number("2"))
        object["c"] = nil
        XCTAssertEqual(object.keys, ["b", "d"])
        XCTAssertEqual(object.map(\.key), ["b", "d"])
        XCTAssertTrue(object.contains("d"))
        XCTAssertNil(object.remove("zzz"))
    }

    func testNestedDuplicatePointers() throws {
        let result = try JSONParser.parseReportingDuplicates(Data(#"{"a":[{"x~/y":1,"x~/y":2}],"b":{"c":{"d":1,"d":2}}}"#.utf8))
        XCTAssertEqual(result.duplicateKeyPointers, ["/a/0/x~0~1y", "/b/c/d"])
    }
}
