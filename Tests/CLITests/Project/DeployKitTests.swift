import Foundation
import TestSupport
import XCTest

/// deploy/: the systemd units pass `systemd-analyze verify`, the example configuration serves every command, the
/// nginx snippet passes `nginx -t`, and the Dockerfile installs what the binary links.
final class DeployKitTests: XCTestCase {
    private let root = packageRoot
    private var deploy: URL { root.appendingPathComponent("deploy") }

    func testSystemdUnitsVerifyCleanly() throws {
        let directory = try makeTemporaryDirectory("units")
        let units = try FileManager.default.contentsOfDirectory(atPath: deploy.path)
            .filter { $0.hasSuffix(".service") || $0.hasSuffix(".timer") }.sorted()
        XCTAssertEqual(units, ["richpush-cache-gc.service", "richpush-cache-gc.timer", "richpush-consume.service", "richpush-serve.service"])
        // verify checks that ExecStart exists: point it at the binary under test.
        for unit in units {
            let text = try String(contentsOf: deploy.appendingPathComponent(unit), encoding: .utf8)
                .replacingOccurrences(of: "/usr/local/bin/richpush", with: CommandRunner.executable.path)
            try text.write(to: directory.appendingPathComponent(unit), atomically: true, encoding: .utf8)
        }
        let result = try runTool(try TestTool.systemdAnalyze.path(), ["verify"] + units.map { directory.appendingPathComponent($0).path })
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertEqual(result.output, "", "systemd-analyze warns about nothing")
    }

    func testExampleConfigurationServesEveryCommand() throws {
        let config = deploy.appendingPathComponent("richpush.json").path
        let validate = try CommandRunner.run(["validate", "--no-fetch", "--config", config, "Fixtures/jobs/sample.ndjson"])
        XCTAssertNotEqual(validate.status, 2, validate.standardError)
        let missing = try makeTemporaryDirectory("none").appendingPathComponent("cache").path
        let gc = try CommandRunner.run(["cache", "gc", "--config", config, "--cache-dir", missing])
        XCTAssertEqual(gc.status, 3, "parsed, then refused the missing cache: \(gc.standardError)")
        XCTAssertTrue(gc.standardError.contains("no cache at"), gc.standardError)
    }

    func testNginxSnippetPassesTheConfigurationTest() throws {
        let directory = try makeTemporaryDirectory("nginx")
        let configFile = try NginxConfiguration.write(in: directory, http: """
            access_log off;
            server {
                listen 127.0.0.1:8;
                include \(deploy.appendingPathComponent("nginx-richpush.conf").path);
            }
            """)
        let result = try runTool(try TestTool.nginx.path(), ["-t", "-c", configFile.path, "-p", directory.path + "/"])
        XCTAssertEqual(result.status, 0, result.output)
    }

    /// The image holds no token, so by default it must not answer every network it is attached to.
    func testDockerfileServesOnLoopbackByDefault() throws {
        let dockerfile = try String(contentsOf: deploy.appendingPathComponent("Dockerfile"), encoding: .utf8)
        let command = try XCTUnwrap(dockerfile.split(separator: "\n").last { $0.hasPrefix("CMD ") })
        XCTAssertTrue(command.contains(#""--listen", "127.0.0.1:8080""#), String(command))
        XCTAssertFalse(command.contains("0.0.0.0"), String(command))
    }

    func testDockerfileInstallsWhatTheBinaryLinks() throws {
        let dockerfile = try String(contentsOf: deploy.appendingPathComponent("Dockerfile"), encoding: .utf8)
        let stages = dockerfile.components(separatedBy: "\nFROM ")
        XCTAssertEqual(stages.count, 3, "a build stage and a runtime stage")
        let (build, runtime) = (stages[1], stages[2])
        XCTAssertTrue(runtime.hasPrefix("debian:12-slim"))
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let providers = try NSRegularExpression(pattern: #"\.apt\(\["([^"]+)"\]\)"#)
            .matches(in: manifest, range: NSRange(manifest.startIndex..., in: manifest))
            .compactMap { Range($0.range(at: 1), in: manifest).map { String(manifest[$0]) } }
        XCTAssertFalse(providers.isEmpty)
        for package in providers {
            XCTAssertTrue(build.contains(" \(package)"), "the build stage does not install \(package)")
        }
        // Each shared library the binary needs (outside the Swift runtime, linked statically there) comes from a
        // Debian package that the runtime stage installs.
        let needed = try runTool(try TestTool.readelf.path(), ["-d", CommandRunner.executable.path]).output
            .split(separator: "\n").compactMap { line -> String? in
                guard line.contains("(NEEDED)"), let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
                return String(line[line.index(after: open)..<close])
            }
        var checked = 0
        for library in needed where !library.hasPrefix("libswift") && !library.hasPrefix("libFoundation")
            && !["libdispatch.so", "libBlocksRuntime.so"].contains(library)
        {
            // With merged /usr a file is registered under one of its two paths; ask for both.
            let candidates = ["/usr/lib/x86_64-linux-gnu/\(library)", "/lib/x86_64-linux-gnu/\(library)", "/lib64/\(library)"]
            let owners = try candidates.map { try runTool("/usr/bin/dpkg", ["-S", $0]) }.filter { $0.status == 0 }
            let package = try XCTUnwrap(owners.first?.output.split(separator: ":").first.map(String.init), "no package owns \(library)")
            if ["libc6"].contains(package) { continue }   // in every Debian image
            XCTAssertTrue(runtime.contains(" \(package)"), "\(library) comes from \(package), which the runtime stage does not install")
            checked += 1
        }
        XCTAssertGreaterThanOrEqual(checked, 6, "the binary links curl, png, jpeg, webp, hiredis, crypto and microhttpd")
    }
}
