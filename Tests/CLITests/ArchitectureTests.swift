import Foundation
import TestSupport
import XCTest
import TestSupport

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
        let manifest = try String(contentsOf: packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
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
            let folder = packageRoot.appendingPathComponent("Sources/\(layer)")
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

    /// Test helpers are written once, in the TestSupport target: a test target neither finds the package root nor
    /// makes a temporary folder of its own (TestSupport's folders are removed after each test), and no library
    /// layer depends on TestSupport.
    func testSharedTestHelpersLiveOnlyInTestSupport() throws {
        let manifest = try String(contentsOf: packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        XCTAssertTrue(manifest.contains(#".target(name: "TestSupport""#), "TestSupport is a target")
        for layer in allowed.keys {
            let folder = packageRoot.appendingPathComponent("Sources/\(layer)")
            for file in try swiftFiles(in: folder) {
                XCTAssertFalse(try String(contentsOf: file, encoding: .utf8).contains("import TestSupport"),
                               "\(layer)/\(file.lastPathComponent) imports TestSupport")
            }
        }
        let forbidden = ["FileManager.default.temporaryDirectory", "Package.swift\").path"]
        for folder in [packageRoot.appendingPathComponent("Tests"), packageRoot.appendingPathComponent("Sources/richpush-bench")] {
            for file in try swiftFiles(in: folder) where !file.path.contains("/Tests/TestSupport/") {
                let source = try String(contentsOf: file, encoding: .utf8)
                for pattern in forbidden where source.contains(pattern) && file.lastPathComponent != "ArchitectureTests.swift" {
                    XCTFail("\(file.lastPathComponent) uses \(pattern); use TestSupport's helper instead")
                }
            }
        }
    }

    private func swiftFiles(in folder: URL) throws -> [URL] {
        let files = try XCTUnwrap(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
        return files.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
    }
}
