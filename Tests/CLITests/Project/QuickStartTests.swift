import Foundation
import TestSupport
import XCTest

/// README's two quick-start commands stay complete: the first installs every library the build links, the second
/// (`scripts/test`) installs every program the tests start. The next dependency cannot be forgotten in either.
final class QuickStartTests: XCTestCase {
    private let root = packageRoot

    private func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The Debian packages named in `.apt([...])` providers.
    private func aptProviders() throws -> [String] {
        let manifest = try text("Package.swift")
        let lists = try NSRegularExpression(pattern: #"\.apt\(\[([^\]]*)\]\)"#)
            .matches(in: manifest, range: NSRange(manifest.startIndex..., in: manifest))
            .compactMap { Range($0.range(at: 1), in: manifest).map { String(manifest[$0]) } }
        return lists.flatMap { list in
            list.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \"\n")) }
        }
    }

    /// The lines of README's first shell block.
    private func quickStartLines() throws -> [String] {
        let readme = try text("README.md")
        let start = try XCTUnwrap(readme.range(of: "```sh\n"), "README has no ```sh block")
        let end = try XCTUnwrap(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
        return readme[start.upperBound..<end.lowerBound].split(separator: "\n").map(String.init)
    }

    /// The words of a bash array assignment `name=(...)` in scripts/test, quotes removed.
    private func scriptArray(_ name: String) throws -> [String] {
        let script = try text("scripts/test")
        let start = try XCTUnwrap(script.range(of: "\n\(name)=("), "scripts/test has no \(name) list")
        let end = try XCTUnwrap(script.range(of: ")\n", range: start.upperBound..<script.endIndex))
        return script[start.upperBound..<end.lowerBound].split(separator: " ")
            .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "'\"")) }
    }

    func testReadmeFirstLineInstallsEveryLinkedLibraryAndRunsTheSample() throws {
        let providers = try aptProviders()
        XCTAssertTrue(providers.contains("libhiredis-dev"), "the manifest parse found \(providers)")
        XCTAssertGreaterThanOrEqual(providers.count, 5)
        let lines = try quickStartLines()
        XCTAssertEqual(lines.count, 2, "README's quick start is two commands: \(lines)")
        let first = try XCTUnwrap(lines.first)
        let install = try XCTUnwrap(first.components(separatedBy: "apt-get install").dropFirst().first)
            .components(separatedBy: "&&")[0].split(separator: " ").map(String.init)
        for package in providers {
            XCTAssertTrue(install.contains(package), "README's first line does not install \(package), which Package.swift links")
        }
        XCTAssertTrue(first.hasPrefix("apt-get update && "), "a fresh Debian machine has no package lists")
        XCTAssertTrue(first.contains("swift run -c release richpush process"))
        XCTAssertTrue(first.contains("Fixtures/jobs/sample.ndjson"))
    }

    func testCIInstallsTheSameBuildPackagesAsTheTestScript() throws {
        let ci = try text(".ci/run")
        let start = try XCTUnwrap(ci.range(of: "\nci_build_packages=("), ".ci/run installs no build packages")
        let end = try XCTUnwrap(ci.range(of: ")\n", range: start.upperBound..<ci.endIndex))
        let listed = ci[start.upperBound..<end.lowerBound].split(separator: " ").map(String.init)
        XCTAssertEqual(listed, try scriptArray("build_packages"))
        for package in try aptProviders() {
            XCTAssertTrue(listed.contains(package), ".ci/run does not install \(package), which Package.swift links")
        }
    }

    func testReadmeSecondLineIsTheScriptThatCIRuns() throws {
        let lines = try quickStartLines()
        XCTAssertEqual(lines.last, "scripts/test")
        let ci = try text(".ci/run")
        XCTAssertTrue(ci.split(separator: "\n").contains("scripts/test"), ".ci/run must run the README's test line")
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: root.appendingPathComponent("scripts/test").path))
    }

    func testTestScriptInstallsEveryServerTheTestsStartAndEveryLinkedLibrary() throws {
        let debian = try scriptArray("build_packages") + scriptArray("test_packages")
        let python = try scriptArray("python_packages")
        XCTAssertFalse(TestTool.allCases.isEmpty)
        for tool in TestTool.allCases {
            switch tool.package {
            case .debian(let name):
                XCTAssertTrue(debian.contains(name), "scripts/test does not install \(name), which provides \(tool.rawValue)")
            case .python(let name):
                XCTAssertTrue(python.contains(name), "scripts/test does not pip-install \(name), which provides \(tool.rawValue)")
            }
        }
        for package in try aptProviders() {
            XCTAssertTrue(debian.contains(package), "scripts/test does not install \(package), which Package.swift links")
        }
    }

    func testEveryServerTheTestsStartIsListedAsATestTool() throws {
        // A test that starts a program by path, instead of through TestTool, would escape the check above.
        let names = TestTool.allCases.map(\.rawValue)
        let tests = root.appendingPathComponent("Tests")
        let files = try XCTUnwrap(FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil))
        var checked = 0
        for case let file as URL in files where file.pathExtension == "swift" {
            let source = try String(contentsOf: file, encoding: .utf8)
            for line in source.split(separator: "\n") where line.contains("executableURL = URL(fileURLWithPath: \"") {
                // coreutils is Essential in Debian, so every machine has it.
                let essential = ["/usr/bin/env\"", "/usr/bin/sha256sum\""].contains { line.contains($0) }
                if !essential {
                    XCTFail("\(file.lastPathComponent) starts a program by a fixed path (\(line)); add it to TestTool")
                }
            }
            checked += 1
        }
        XCTAssertGreaterThan(checked, 20)
        XCTAssertEqual(Set(names).count, names.count)
    }

    func testCIInstallsWhatTheBrowserTestNeedsBeforeRunningIt() throws {
        let ci = try text(".ci/run")
        let script = try text("scripts/browser_test.py")
        XCTAssertTrue(script.contains("from selenium import webdriver"))
        XCTAssertTrue(script.contains("chromedriver") && script.contains("chromium"))
        for (list, packages) in [("browser_packages", ["chromium", "chromium-driver"]), ("browser_python_packages", ["selenium"])] {
            let assignment = try XCTUnwrap(ci.split(separator: "\n").first { $0.hasPrefix("\(list)=(") }, ".ci/run has no \(list)")
            for package in packages {
                XCTAssertTrue(assignment.contains(package), ".ci/run does not install \(package) for the browser test")
            }
        }
        let lines = ci.split(separator: "\n").map(String.init)
        let run = try XCTUnwrap(lines.firstIndex(of: "python3 scripts/browser_test.py"), ".ci/run does not run the browser test")
        XCTAssertLessThan(try XCTUnwrap(lines.firstIndex(of: "scripts/test")), run, "the browser test runs the binary scripts/test built")
        XCTAssertLessThan(try XCTUnwrap(lines.firstIndex { $0.hasPrefix("browser_packages=(") }), run)
    }

    func testMissingToolNamesTheCommandThatInstallsIt() {
        let message = TestTool.Missing(tool: .redisServer).description
        XCTAssertTrue(message.contains("redis-server"))
        XCTAssertTrue(message.contains("scripts/test"))
    }

    func testDefaultCacheFolderIsIgnored() throws {
        let ignored = try text(".gitignore").split(separator: "\n").map(String.init)
        XCTAssertTrue(ignored.contains("/richpush-cache/") || ignored.contains("richpush-cache/"))
    }
}
