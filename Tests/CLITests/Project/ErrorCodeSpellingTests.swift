import Foundation
import TestSupport
import XCTest

/// Each declared `ErrorCode` is spelled once, at its declaration; everywhere else names the constant, so a code
/// cannot drift between layers (`error.code == .deadlineExceeded`, never `== "deadline_exceeded"`).
final class ErrorCodeSpellingTests: XCTestCase {
    /// Spellings not yet replaced, each with the reason. Keep it short; an entry that no longer matches fails.
    private let pending: [String: String] = [:]

    func testNoSourceSpellsADeclaredCodeOutsideItsDeclaration() throws {
        let sources = try swiftSources()
        let declaration = try NSRegularExpression(pattern: #"static let (\w+): ErrorCode = "([^"]+)""#)
        var declared: [String: [String]] = [:]  // raw value → where
        var names: Set<String> = []
        for (path, text) in sources {
            for (number, line) in text.components(separatedBy: "\n").enumerated() {
                for match in declaration.matches(in: line, range: NSRange(line.startIndex..., in: line)) {
                    names.insert(String(line[Range(match.range(at: 1), in: line)!]))
                    declared[String(line[Range(match.range(at: 2), in: line)!]), default: []].append("\(path):\(number + 1)")
                }
            }
        }
        for (raw, places) in declared {
            XCTAssertEqual(places.count, 1, "\"\(raw)\" is declared more than once: \(places)")
        }
        // The codes the layers share are among them, so this test cannot pass by declaring nothing.
        XCTAssertTrue(
            ["deadlineExceeded", "cancelled", "invalidOutput", "corruptMedia", "unsupportedFormat"].allSatisfy(names.contains),
            "missing declarations: \(names)")

        let literal = try NSRegularExpression(pattern: #""([a-z0-9_]+)""#)
        var unused = Set(pending.keys)
        for (path, text) in sources {
            for (number, line) in text.components(separatedBy: "\n").enumerated() {
                if line.trimmingCharacters(in: .whitespaces).hasPrefix("//") { continue }
                if declaration.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil { continue }
                for match in literal.matches(in: line, range: NSRange(line.startIndex..., in: line)) {
                    let raw = String(line[Range(match.range(at: 1), in: line)!])
                    guard declared[raw] != nil else { continue }
                    if unused.remove("\(path):\(raw)") != nil || pending["\(path):\(raw)"] != nil { continue }
                    XCTFail("\(path):\(number + 1) spells \"\(raw)\"; use the ErrorCode constant declared at \(declared[raw]![0])")
                }
            }
        }
        XCTAssertEqual(unused, [], "pending spellings that are gone: remove them from the list")
    }

    /// An HTTP error answer names a declared code, even one no other layer uses: `code:` takes an `ErrorCode`, but a
    /// string literal would still compile (it is `ExpressibleByStringLiteral`), so the scan catches it.
    func testHTTPErrorAnswersNameDeclaredCodes() throws {
        let call = try NSRegularExpression(pattern: #"\.error\(\s*\d+\s*,\s*code:\s*([^,]+),"#)
        var calls = 0
        for (path, text) in try swiftSources() {
            for match in call.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                calls += 1
                let code = String(text[Range(match.range(at: 1), in: text)!])
                XCTAssertFalse(code.contains("\""), "\(path) answers an HTTP error with the literal \(code); declare an ErrorCode")
            }
        }
        // The routes and the server answer with errors in many places, so this test cannot pass by finding none.
        XCTAssertGreaterThan(calls, 10, "the scan found the .error( calls")
    }

    /// Every Swift file under Sources, by path relative to the package root.
    private func swiftSources() throws -> [(path: String, text: String)] {
        let folder = packageRoot.appendingPathComponent("Sources")
        let files = try XCTUnwrap(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
        var sources: [(String, String)] = []
        for case let file as URL in files where file.pathExtension == "swift" {
            let path = String(file.path.dropFirst(packageRoot.path.count + 1))
            sources.append((path, try String(contentsOf: file, encoding: .utf8)))
        }
        XCTAssertGreaterThan(sources.count, 100, "the scan found the sources")
        return sources.sorted { $0.0 < $1.0 }
    }
}
