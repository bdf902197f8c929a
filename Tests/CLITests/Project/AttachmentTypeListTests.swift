import Foundation
import RichPush
import XCTest
import TestSupport

/// The CDN's Content-Type lists (deploy/nginx-richpush.conf's `types` block, README's nginx snippet and its list)
/// name exactly the published formats of `AttachmentFormat`, the table the sniffer and the cache follow.
final class AttachmentTypeListTests: XCTestCase {
    private let root = packageRoot

    /// `media/type ext;` pairs inside the first `types { ... }` block of `text`.
    private func typesBlock(in text: String) throws -> Set<String> {
        let start = try XCTUnwrap(text.range(of: "types {"))
        let end = try XCTUnwrap(text.range(of: "}", range: start.upperBound..<text.endIndex))
        return Set(text[start.upperBound..<end.lowerBound]
            .split(separator: ";")
            .map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") })
    }

    private var published: [AttachmentFormat] { AttachmentFormat.allCases.filter(\.isPublished) }
    private var expected: Set<String> { Set(published.map { "\($0.mediaType) \($0.fileExtension)" }) }

    func testNginxTypesBlockMatchesTheTable() throws {
        let conf = try String(contentsOf: root.appendingPathComponent("deploy/nginx-richpush.conf"), encoding: .utf8)
        // Skip the comment lines above the block: only directives count.
        let directives = conf.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#") }
            .joined(separator: "\n")
        XCTAssertEqual(try typesBlock(in: directives), expected)
    }

    func testTheDeployGuideListsEveryTypeOfTheTable() throws {
        let readme = try String(contentsOf: root.appendingPathComponent("docs/deploy.md"), encoding: .utf8)
        XCTAssertEqual(try typesBlock(in: readme), expected)
        for format in published {
            XCTAssertTrue(readme.contains("`.\(format.fileExtension)` → `\(format.mediaType)`"), "docs/deploy.md's list lacks \(format)")
        }
    }
}
