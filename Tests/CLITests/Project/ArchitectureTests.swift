import Foundation
import TestSupport
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
        "RichPushPreview": ["RichPushCore", "RichPushPayload", "RichPushCache"],
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

    /// Files whose import of a layer is needed only for a member reached through a value of that layer's type, so the
    /// file names no declaration of it (MemberImportVisibility still requires the import). Each entry says which.
    private let memberOnlyImports: [String: (layer: String, member: String)] = [
        "RichPushCache/Entries/CachedObject.swift": ("RichPushCore", "AttachmentFormat.fileExtension, through `format`"),
        "RichPushCache/ObjectStorage/ObjectStorageBackend.swift": ("RichPushCore", "AttachmentFormat.mediaType"),
        "RichPushHTTP/Client/Curl/CurlTransfer+Callbacks.swift": ("RichPushCore", "ErrorCode.rawValue"),
        "RichPushPipeline/JobMetrics.swift": ("RichPushPayload", "PublishedMedia.bytes"),
        "RichPushPipeline/MediaStage.swift": ("RichPushPayload", "MediaOutcome.notFetched"),
        "RichPushPreview/CachedObjectPath.swift": ("RichPushCore", "AttachmentFormat.allCases and fileExtension"),
        "RichPushRedis/Streams/RedisStreamConsumer+Writing.swift": ("RichPushCore", "LogLevel.warning"),
    ]

    /// A file's imports are its real dependencies. The compiler holds the one direction: with the upcoming feature
    /// MemberImportVisibility (Package.swift) a file must import every module whose members it uses. This test holds
    /// the other: a file that imports a layer names one of the layer's declarations (a type, a top-level function or
    /// a member it adds to a type of another module), or is listed in `memberOnlyImports`; and no layer is imported
    /// inside a platform conditional, where a reader of the file's head would miss it.
    func testEveryLayerImportIsUsed() throws {
        let names = try Dictionary(uniqueKeysWithValues: allowed.keys.map { ($0, try declaredNames(of: $0)) })
        var listedAndNeeded: Set<String> = []
        for layer in allowed.keys {
            let folder = packageRoot.appendingPathComponent("Sources/\(layer)")
            for file in try swiftFiles(in: folder) {
                let relative = layer + "/" + file.path.dropFirst(folder.path.count + 1)
                let source = try String(contentsOf: file, encoding: .utf8)
                var conditionalDepth = 0
                var imported: [String] = []
                var body = ""
                for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
                    if line.hasPrefix("#if") { conditionalDepth += 1 }
                    if line.hasPrefix("#endif") { conditionalDepth -= 1 }
                    if line.hasPrefix("import RichPush") {
                        let module = String(line.dropFirst("import ".count))
                        XCTAssertEqual(conditionalDepth, 0, "\(relative) imports \(module) inside #if")
                        imported.append(module)
                    } else if !line.hasPrefix("import ") {
                        body += (line.range(of: "//").map { line[..<$0.lowerBound] } ?? line) + "\n"
                    }
                }
                let words = Set(body.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
                for module in imported where words.isDisjoint(with: names[module] ?? []) {
                    if memberOnlyImports[relative]?.layer == module {
                        listedAndNeeded.insert(relative)
                    } else {
                        XCTFail("\(relative) imports \(module) but names none of its declarations: remove the import")
                    }
                }
            }
        }
        XCTAssertEqual(listedAndNeeded, Set(memberOnlyImports.keys), "memberOnlyImports lists only files that need it")
    }

    /// The names a layer declares for others: its public, open and package types and top-level functions and
    /// values, and the members its extensions add to types of other modules (`Duration.timeInterval`).
    private func declaredNames(of layer: String) throws -> Set<String> {
        let access = "(?:public|open|package)"
        let type = try NSRegularExpression(
            pattern: #"^\s*(?:@\w+\s+)*"# + access + #"\s+(?:(?:final|indirect)\s+)*(?:struct|enum|class|protocol|actor|typealias)\s+(\w+)"#,
            options: .anchorsMatchLines)
        let topLevel = try NSRegularExpression(
            pattern: #"^(?:@\w+\s+)*"# + access + #"\s+(?:func|let|var)\s+(\w+)"#, options: .anchorsMatchLines)
        let extensionBlock = try NSRegularExpression(
            pattern: #"^(public )?extension\s+([\w.]+)[^{]*\{(.*?)^\}"#, options: [.anchorsMatchLines, .dotMatchesLineSeparators])
        let anyMember = try NSRegularExpression(pattern: #"(?:func|var|let)\s+(\w+)"#)
        let exposedMember = try NSRegularExpression(pattern: access + #"\s+(?:static\s+)?(?:func|var|let)\s+(\w+)"#)
        var types: Set<String> = []
        var extensions: [(extended: String, isPublic: Bool, body: String)] = []
        for file in try swiftFiles(in: packageRoot.appendingPathComponent("Sources/\(layer)")) {
            let source = try String(contentsOf: file, encoding: .utf8)
            let whole = NSRange(source.startIndex..., in: source)
            func text(_ match: NSTextCheckingResult, _ group: Int) -> String? {
                Range(match.range(at: group), in: source).map { String(source[$0]) }
            }
            for regex in [type, topLevel] {
                types.formUnion(regex.matches(in: source, range: whole).compactMap { text($0, 1) })
            }
            for match in extensionBlock.matches(in: source, range: whole) {
                extensions.append((text(match, 2) ?? "", text(match, 1) != nil, text(match, 3) ?? ""))
            }
        }
        var names = types
        for (extended, isPublic, body) in extensions where !types.contains(String(extended.prefix { $0 != "." })) {
            let regex = isPublic ? anyMember : exposedMember
            names.formUnion(regex.matches(in: body, range: NSRange(body.startIndex..., in: body)).compactMap {
                Range($0.range(at: 1), in: body).map { String(body[$0]) }
            })
        }
        return names
    }

    /// Test helpers are written once, in the TestSupport target: a test target neither finds the package root nor
    /// makes a temporary folder of its own (TestSupport's folders are removed after each test), and no library
    /// layer depends on TestSupport.
    func testSharedTestHelpersLiveOnlyInTestSupport() throws {
        let manifest = try String(contentsOf: packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        XCTAssertTrue(manifest.contains(#"name: "TestSupport""#), "TestSupport is a target")
        // Nor does production code link a test instrument (TestSupport's, or CTestInstruments').
        for module in Array(allowed.keys) + ["richpush"] {
            let folder = packageRoot.appendingPathComponent("Sources/\(module)")
            for file in try swiftFiles(in: folder) {
                let source = try String(contentsOf: file, encoding: .utf8)
                for instrument in Self.helperTargets.map({ "import \($0)" }) {
                    XCTAssertFalse(source.contains(instrument), "\(module)/\(file.lastPathComponent): \(instrument)")
                }
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

    /// What tests (and the benchmark and fuzz tools) share, under Tests/, and production never links.
    private static let helperTargets = ["TestSupport", "ImagingTestSupport", "CTestInstruments"]

    /// The test targets mirror the library: each is `<Layer>Tests` for a layer target (`RichPushCore`'s are
    /// `CoreTests`), or `CLITests` for the `richpush` executable; the other folders under Tests/ are the helper
    /// targets. `CoreTests` depends on Core alone, so a test there cannot reach a layer above.
    func testTestTargetsAreNamedAfterTheLayersTheyTest() throws {
        let manifest = try String(contentsOf: packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"\.testTarget\(\s*name: "(\w+)",\s*dependencies: \[([^\]]*)\]"#)
        let layerTests = Set(allowed.keys.map { String($0.dropFirst("RichPush".count)) + "Tests" })
        var dependencies: [String: Set<String>] = [:]
        for match in pattern.matches(in: manifest, range: NSRange(manifest.startIndex..., in: manifest)) {
            let name = String(manifest[Range(match.range(at: 1), in: manifest)!])
            XCTAssertTrue(layerTests.contains(name) || name == "CLITests",
                          "test target \(name) is neither <Layer>Tests for a layer (\(layerTests.sorted())) nor CLITests")
            dependencies[name] = Set(manifest[Range(match.range(at: 2), in: manifest)!]
                .split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \"\n")) })
        }
        XCTAssertTrue(dependencies.keys.contains("CLITests"), "the manifest's test targets were found")
        XCTAssertEqual(dependencies["CoreTests"], ["RichPushCore", "TestSupport"], "CoreTests depends on Core alone")
        XCTAssertTrue(manifest.contains(#".target(name: "TestSupport", dependencies: ["CPNG"], path: "Tests/TestSupport")"#),
                      "TestSupport is a helper target, not a test target, and reaches no layer")
        let tests = packageRoot.appendingPathComponent("Tests")
        let folders = try FileManager.default.contentsOfDirectory(at: tests, includingPropertiesForKeys: [.isDirectoryKey])
            .filter { (try? $0.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true }
            .map(\.lastPathComponent)
        XCTAssertEqual(folders.sorted(), (dependencies.keys + Self.helperTargets).sorted(),
                       "every folder under Tests/ is a test target or a helper")
    }

    /// Sources and tests are in rooms by concern (docs/architecture.md): no folder under Sources/ or Tests/ holds
    /// more than `filesPerFolder` Swift files of its own, so a layer or test target that grows is divided into
    /// folders rather than kept flat.
    func testFoldersAreRoomsOfAFewFiles() throws {
        for top in ["Sources", "Tests"] {
            let root = packageRoot.appendingPathComponent(top)
            var filesByFolder: [String: Int] = [:]
            for file in try swiftFiles(in: root) {
                filesByFolder[String(file.deletingLastPathComponent().path.dropFirst(root.path.count + 1)), default: 0] += 1
            }
            XCTAssertGreaterThan(filesByFolder.count, 10, "the folders under \(top)/ were found")
            for (folder, count) in filesByFolder.sorted(by: { $0.key < $1.key }) {
                XCTAssertLessThanOrEqual(count, Self.filesPerFolder, "\(top)/\(folder) holds \(count) files: divide it by concern")
            }
        }
    }

    private static let filesPerFolder = 20

    private func swiftFiles(in folder: URL) throws -> [URL] {
        let files = try XCTUnwrap(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
        return files.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
    }
}
