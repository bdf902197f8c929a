import Foundation
import XCTest

/// The layering the compiler enforces is the one intended: Package.swift declares no edge up or sideways.
final class ArchitectureTests: XCTestCase {
    /// Each layer and the layers it may import.
    private let allowed: [String: Set<String>] = [
        "RichPushCore": [],
        "RichPushPayload": ["RichPushCore"],
        "RichPushImaging": ["RichPushCore"],
        "RichPushHTTP": ["RichPushCore"],
        "RichPushCache": ["RichPushCore"],
        "RichPushRedis": ["RichPushCore", "RichPushCache"],
        "RichPushPipeline": ["RichPushCore", "RichPushPayload", "RichPushImaging", "RichPushHTTP", "RichPushCache"],
    ]

    func testLayersDependOnlyDownward() throws {
        let manifest = try String(contentsOf: CommandRunner.packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"\.target\(\s*name: "(RichPush\w+)",\s*dependencies: \[([^\]]*)\]"#)
        var seen: Set<String> = []
        for match in pattern.matches(in: manifest, range: NSRange(manifest.startIndex..., in: manifest)) {
            let name = String(manifest[Range(match.range(at: 1), in: manifest)!])
            let dependencies = manifest[Range(match.range(at: 2), in: manifest)!]
                .split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \"\n")) }
                .filter { $0.hasPrefix("RichPush") }
            let permitted = try XCTUnwrap(allowed[name], "\(name) is a layer this test does not know: add it with its place")
            for dependency in dependencies {
                XCTAssertTrue(permitted.contains(dependency), "\(name) must not depend on \(dependency)")
            }
            seen.insert(name)
        }
        XCTAssertEqual(seen, Set(allowed.keys), "every layer is a target")
        // Sources of a layer import nothing above or beside it either (an import of a transitive target compiles).
        for (layer, permitted) in allowed {
            let folder = CommandRunner.packageRoot.appendingPathComponent("Sources/\(layer)")
            let files = try XCTUnwrap(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
            for case let file as URL in files where file.pathExtension == "swift" {
                let source = try String(contentsOf: file, encoding: .utf8)
                for line in source.split(separator: "\n") where line.hasPrefix("import RichPush") {
                    let imported = String(line.dropFirst("import ".count))
                    XCTAssertTrue(permitted.contains(imported), "\(layer)/\(file.lastPathComponent) imports \(imported)")
                }
            }
        }
    }
}
