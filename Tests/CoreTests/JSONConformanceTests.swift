import Foundation
import XCTest
@testable import RichPushCore
import TestSupport

/// `JSONParser` against JSONTestSuite (nst/JSONTestSuite, in Fixtures/conformance/json), whose file names are the
/// answers: `y_` documents RFC 8259 requires a parser to accept, `n_` ones it must reject, and `i_` ones where the
/// choice is the implementation's (ours: docs/diagnostic-codes.md, "JSON input").
final class JSONConformanceTests: XCTestCase {
    /// Every document the standard requires is accepted and reads as Foundation's independent parser reads it; what
    /// `serialized()` writes reads back as the same value, to us and to Foundation, and serializes to the same bytes.
    func testEveryDocumentTheStandardAllowsIsAcceptedAndReadAsWritten() throws {
        let accepted = try JSONTestSuite.documents("y_")
        XCTAssertEqual(accepted.count, 95)
        for document in accepted {
            let value: JSONValue
            do {
                value = try JSONParser.parse(document.bytes)
            } catch {
                XCTFail("\(document.name) rejected: \(error)")
                continue
            }
            let written = value.serialized()
            let reread = try JSONParser.parse(written)
            XCTAssertEqual(reread, value, document.name)
            XCTAssertEqual(reread.serialized(), written, document.name)
            guard let theirs = try? JSONSerialization.jsonObject(with: document.bytes, options: [.fragmentsAllowed]) else {
                XCTFail("\(document.name): Foundation does not read it, so it cannot be compared")
                continue
            }
            XCTAssertTrue(Self.same(value, theirs), "\(document.name): ours \(String(decoding: written, as: UTF8.self)), Foundation's \(theirs)")
            // And what we write reads the same to it: a device's parser gets what the author wrote.
            let rereadByFoundation = try JSONSerialization.jsonObject(with: written, options: [.fragmentsAllowed])
            XCTAssertTrue(Self.same(value, rereadByFoundation), "\(document.name): Foundation reads our output as \(rereadByFoundation)")
        }
    }

    /// Every document the standard forbids is rejected with a typed, coded error that says where, never accepted,
    /// trapped on or read past its end (100,000 opening brackets included).
    func testEveryDocumentTheStandardForbidsIsRejectedWithItsPlace() throws {
        let rejected = try JSONTestSuite.documents("n_")
        XCTAssertEqual(rejected.count, 188)
        for document in rejected {
            do {
                let value = try JSONParser.parse(document.bytes)
                XCTFail("\(document.name) accepted as \(String(decoding: value.serialized(), as: UTF8.self))")
            } catch {
                XCTAssertTrue(error.code.rawValue.hasPrefix("json_"), document.name)
                XCTAssertFalse(error.description.isEmpty, document.name)
                if error.code.rawValue != "json_empty" {
                    XCTAssertGreaterThanOrEqual(error.line, 1, document.name)
                    XCTAssertGreaterThanOrEqual(error.column, 1, document.name)
                }
            }
        }
    }

    /// The implementation's choices: a number is kept as its text, however large or small (nothing converts it, so
    /// the device parses what the author wrote), and a UTF-8 byte order mark is skipped. What could not be passed on
    /// as written is refused with its own code: bytes that are not UTF-8 (UTF-16 included), an escape that is half a
    /// surrogate pair, nesting deeper than 64.
    func testImplementationDefinedDocumentsGetTheDocumentedChoice() throws {
        let cases = try JSONTestSuite.documents("i_")
        XCTAssertEqual(cases.count, 35)
        let acceptedNumbers: Set = [
            "i_number_double_huge_neg_exp.json", "i_number_huge_exp.json", "i_number_neg_int_huge_exp.json",
            "i_number_pos_double_huge_exp.json", "i_number_real_neg_overflow.json", "i_number_real_pos_overflow.json",
            "i_number_real_underflow.json", "i_number_too_big_neg_int.json", "i_number_too_big_pos_int.json",
            "i_number_very_big_negative_int.json",
        ]
        var codes: [String: Set<String>] = [:]
        for document in cases {
            let name = document.name
            do {
                let value = try JSONParser.parse(document.bytes)
                if acceptedNumbers.contains(name) {
                    // The number's text, exactly as in the file.
                    let text = String(decoding: document.bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                    XCTAssertEqual(String(decoding: value.serialized(), as: UTF8.self), text, name)
                } else {
                    XCTAssertEqual(name, "i_structure_UTF-8_BOM_empty_object.json", "accepted")
                    XCTAssertEqual(value, .object(JSONObject()), name)
                }
            } catch {
                XCTAssertFalse(acceptedNumbers.contains(name), "\(name) rejected: \(error)")
                codes[error.code.rawValue, default: []].insert(name)
            }
        }
        XCTAssertEqual(codes["json_too_deep"], ["i_structure_500_nested_arrays.json"])
        XCTAssertEqual(codes["json_unpaired_surrogate"]?.count, 10)
        XCTAssertEqual(codes["json_invalid_utf8"]?.count, 10)
        // UTF-16, with or without its byte order mark, is not UTF-8 from its first bytes on.
        XCTAssertEqual(codes["json_unexpected_character"],
                       ["i_string_UTF-16LE_with_BOM.json", "i_string_utf16BE_no_BOM.json", "i_string_utf16LE_no_BOM.json"])
        XCTAssertEqual(codes.values.reduce(0) { $0 + $1.count }, 24)
    }

    /// Whether `ours` and Foundation's reading of the same document hold the same JSON: numbers by value.
    private static func same(_ ours: JSONValue, _ theirs: Any) -> Bool {
        switch ours {
        case .null:
            return theirs is NSNull
        case .bool(let flag):
            return (theirs as? Bool) == flag
        case .number(let text):
            // Foundation reads some numbers as a Decimal (exact), the rest as a binary Int or Double.
            if let decimal = theirs as? Decimal { return Decimal(string: text) == decimal }
            return (theirs as? NSNumber)?.doubleValue == Double(text)
        case .string(let text):
            return (theirs as? String) == text
        case .array(let elements):
            guard let others = theirs as? [Any], others.count == elements.count else { return false }
            return zip(elements, others).allSatisfy { same($0, $1) }
        case .object(let object):
            guard let others = theirs as? [String: Any], others.count == object.count else { return false }
            return object.allSatisfy { key, value in others[key].map { same(value, $0) } ?? false }
        }
    }
}
