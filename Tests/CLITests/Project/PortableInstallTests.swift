import Foundation
import TestSupport
import XCTest

/// Installing without the toolchain: docs/install.md's build links the Swift runtime statically, such a build loads only
/// libraries from Debian packages (a plain build does not), and `scripts/package` makes the tarball of it.
final class PortableInstallTests: XCTestCase {
    private var checker: String { packageRoot.appendingPathComponent("scripts/check_portable_binary.py").path }

    func testReadmeInstallLinksTheSwiftRuntimeStatically() throws {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("docs/install.md"), encoding: .utf8)
        let install = try XCTUnwrap(readme.components(separatedBy: "\n## Install\n").last?.components(separatedBy: "\n## ").first)
        XCTAssertTrue(install.contains("swift build -c release --product richpush --static-swift-stdlib"), install)
        XCTAssertTrue(install.contains("Debian 12") && install.contains("swiftly"), "says where Swift 6.3 comes from")
        let ci = try String(contentsOf: packageRoot.appendingPathComponent(".ci/run"), encoding: .utf8)
        XCTAssertTrue(ci.split(separator: "\n").contains("scripts/package"), "CI builds and checks the static binary")
    }

    func testTheLinkCheckRefusesABinaryThatNeedsTheToolchain() throws {
        // The debug binary under test is a plain build: it loads the Swift runtime from the toolchain.
        let plain = try runTool(try TestTool.python3.path(), [checker, CommandRunner.executable.path])
        XCTAssertEqual(plain.status, 1, plain.output)
        XCTAssertTrue(plain.output.contains("libswiftCore.so: from the Swift toolchain"), plain.output)
        // A binary whose libraries all come from Debian packages passes.
        let system = try runTool(try TestTool.python3.path(), [checker, try TestTool.curl.path()])
        XCTAssertEqual(system.status, 0, system.output)
        XCTAssertTrue(system.output.contains("each from a Debian package"), system.output)
    }

    /// README's release build, in a scratch folder of its own so it never touches the suite's debug build: 100 to 160 s
    /// from nothing on a 2-core machine, a few seconds after that.
    func testTheStaticReleaseBuildLoadsOnlyDebianLibrariesAndIsPackaged() throws {
        let scratch = packageRoot.appendingPathComponent(".build/static-release").path
        let build = try runTool("/usr/bin/env", ["swift", "build", "-c", "release", "--product", "richpush", "--static-swift-stdlib",
                                             "--scratch-path", scratch])
        XCTAssertEqual(build.status, 0, build.output)
        let binary = scratch + "/release/richpush"
        let checked = try runTool(try TestTool.python3.path(), [checker, binary])
        XCTAssertEqual(checked.status, 0, checked.output)
        XCTAssertTrue(checked.output.contains("each from a Debian package"), checked.output)
        let readelf = try runTool(try TestTool.readelf.path(), ["-d", binary]).output
        XCTAssertFalse(readelf.contains("/opt/swift"), "no RUNPATH into the toolchain: \(readelf)")

        let output = try makeTemporaryDirectory("package")
        let packaged = try runTool(packageRoot.appendingPathComponent("scripts/package").path, ["--binary", binary, "--output", output.path])
        XCTAssertEqual(packaged.status, 0, packaged.output)
        let tarball = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: output.path).first { $0.hasSuffix(".tar.gz") })
        XCTAssertTrue(tarball.hasPrefix("richpush-"), tarball)
        let name = String(tarball.dropLast(".tar.gz".count))
        let listing = try runTool("/usr/bin/env", ["tar", "-tzf", output.appendingPathComponent(tarball).path]).output.split(separator: "\n").map(String.init)
        for entry in ["bin/richpush", "deploy/richpush.json", "deploy/richpush-serve.service", "deploy/Dockerfile", "LICENSE", "README.md"] {
            XCTAssertTrue(listing.contains("\(name)/\(entry)"), "\(entry) missing from \(listing)")
        }
        XCTAssertEqual(try runTool("/usr/bin/env", ["tar", "-xzf", output.appendingPathComponent(tarball).path, "-C", output.path]).status, 0)
        let readme = try String(contentsOf: output.appendingPathComponent("\(name)/README.md"), encoding: .utf8)
        XCTAssertTrue(readme.contains("## Install") && readme.contains("## Deploy") && readme.contains("## Operate"), readme)
        XCTAssertFalse(readme.contains("## Develop"), "the guides for installing and running, not the development one")
        let license = try String(contentsOf: output.appendingPathComponent("\(name)/LICENSE"), encoding: .utf8)
        XCTAssertTrue(license.contains("Apache License") && license.contains("Version 2.0"))
        let packagedBinary = output.appendingPathComponent("\(name)/bin/richpush").path
        XCTAssertEqual(try runTool(packagedBinary, ["--version"]).output, try CommandRunner.run(["--version"]).standardOutput)

        // A binary that needs the toolchain is refused: no tarball.
        let refusedOutput = try makeTemporaryDirectory("package")
        let refused = try runTool(packageRoot.appendingPathComponent("scripts/package").path,
                              ["--binary", CommandRunner.executable.path, "--output", refusedOutput.path])
        XCTAssertEqual(refused.status, 1, refused.output)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: refusedOutput.path), [])
    }
}
