import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushPayload

/// Issue 17 item 1, as a property: for every input shape, documents with random extra keys at every level come
/// out with every input key in the APNs payload, in the result's `target`, or in `InputKeyMapping`'s list for its
/// level. No key is dropped silently.
final class KeyPreservationPropertyTests: XCTestCase {
    private static let documentsPerShape = 150

    func testEveryKeyOfEveryShapeIsKept() throws {
        var generator = DocumentGenerator(seed: 17)
        for shape in DocumentGenerator.Shape.allCases {
            for _ in 0..<Self.documentsPerShape {
                let document = generator.document(shape)
                try assertEveryKeyKept(document, shape: shape)
            }
        }
    }

    /// The checker itself must notice a lost key, or the property above proves nothing.
    func testCheckerNoticesALostKey() {
        let input: JSONObject = ["payload": .object(["aps": .object([:]), "kept": .number("1"), "lost": .number("2")])]
        let output: JSONValue = .object(["aps": .object([:]), "kept": .number("1")])
        let missing = Self.missingKeys(in: .object(input), levels: [[]: Set(InputKeyMapping.envelope.keys)],
                                       outputs: [output])
        XCTAssertEqual(missing, ["/payload/lost"])
    }

    private func assertEveryKeyKept(_ document: JSONObject, shape: DocumentGenerator.Shape,
                                    file: StaticString = #filePath, line: UInt = #line) throws {
        let text = String(decoding: JSONValue.object(document).serialized(), as: UTF8.self)
        guard case .jobs(let jobs) = PayloadParser().parse(Data(text.utf8)) else {
            return XCTFail("rejected: \(text)", file: file, line: line)
        }
        var outputs: [JSONValue] = []
        for job in jobs {
            switch APNsRenderer().render(job, media: PayloadHelpers.renderedMedia(for: job), now: PayloadHelpers.fixedNow) {
            case .rendered(let request, _):
                outputs.append(request.payload)
                // Pushwoosh custom data reaches the device inside `u`, a string holding the JSON object.
                if let custom = request.payload.value(at: "/u")?.stringValue, let parsed = try? JSONParser.parse(Data(custom.utf8)) {
                    outputs.append(parsed)
                }
                outputs.append(.object(request.target))
            case .rejected(let diagnostics):
                return XCTFail("render rejected \(diagnostics): \(text)", file: file, line: line)
            }
        }
        let missing = Self.missingKeys(in: .object(document), levels: shape.mappedLevels, outputs: outputs)
        XCTAssertEqual(missing, [], "\(shape): \(text)", file: file, line: line)
    }

    /// Pointers of input keys found neither in `outputs` (as a member of the same name, with the same value unless
    /// the value is a container, whose members are checked in turn, or a media URL the renderer rewrote) nor in the mapped keys of their level. A level is
    /// the path of member names from the root, with "[]" for any array element.
    static func missingKeys(in value: JSONValue, levels: [[String]: Set<String>], outputs: [JSONValue]) -> [String] {
        var missing: [String] = []
        func visit(_ value: JSONValue, path: [String], tokens: [String]) {
            switch value {
            case .object(let object):
                for (key, member) in object {
                    let mapped = levels[path]?.contains(key) == true
                    if !mapped && !outputs.contains(where: { contains(key: key, value: member, in: $0) }) {
                        missing.append(JSONPointer.make(tokens + [key]))
                    }
                    visit(member, path: path + [key], tokens: tokens + [key])
                }
            case .array(let elements):
                for (index, element) in elements.enumerated() {
                    visit(element, path: path + ["[]"], tokens: tokens + [String(index)])
                }
            default:
                break
            }
        }
        visit(value, path: [], tokens: [])
        return missing
    }

    private static func contains(key: String, value: JSONValue, in tree: JSONValue) -> Bool {
        switch tree {
        case .object(let object):
            for (name, member) in object {
                if name == key && matches(value, member) { return true }
                if contains(key: key, value: value, in: member) { return true }
            }
            return false
        case .array(let elements):
            return elements.contains { contains(key: key, value: value, in: $0) }
        default:
            return false
        }
    }

    private static func matches(_ input: JSONValue, _ output: JSONValue) -> Bool {
        switch (input, output) {
        case (.object, .object): return true
        // Elements that are objects are checked member by member; an array of media URLs may be rewritten.
        case (.array(let before), .array(let after)): return before.count == after.count
        case (.string(let url), .string) where url.hasPrefix(DocumentGenerator.mediaPrefix): return true
        default: return input == output
        }
    }
}
