import Foundation
import TestSupport
import XCTest

/// deploy/Dockerfile without docker: its structure (layers, working directory, non-root user, health check, no
/// placeholder), and its runtime stage's user and cache-directory step run in a temporary root, after which the
/// binary, as that user and from that working directory, writes its cache.
final class DockerImageTests: XCTestCase {
    private let dockerfile = packageRoot.appendingPathComponent("deploy/Dockerfile")

    /// The Dockerfile's instructions, continuation lines joined, comments dropped.
    private func instructions(of text: String) -> [String] {
        var result: [String] = []
        var current = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("#") || (trimmed.isEmpty && current.isEmpty) { continue }
            if trimmed.hasSuffix("\\") {
                current += trimmed.dropLast() + " "
            } else {
                result.append((current + trimmed).trimmingCharacters(in: .whitespaces))
                current = ""
            }
        }
        return result.filter { !$0.isEmpty }
    }

    private func stages() throws -> (build: [String], runtime: [String]) {
        let all = instructions(of: try String(contentsOf: dockerfile, encoding: .utf8))
        let starts = all.indices.filter { all[$0].hasPrefix("FROM ") }
        XCTAssertEqual(starts.count, 2, "a build stage and a runtime stage")
        return (Array(all[starts[0]..<starts[1]]), Array(all[starts[1]...]))
    }

    func testTheDockerfileBuildsInLayersAndRunsAsAUserWithAHealthCheck() throws {
        let (build, runtime) = try stages()
        // Manifest, then sources, then the build; never the whole context.
        XCTAssertFalse(build.contains { $0.hasPrefix("COPY . ") }, "COPY . . rebuilds on any README edit")
        let manifest = try XCTUnwrap(build.firstIndex { $0.hasPrefix("COPY Package.swift") })
        let sources = try XCTUnwrap(build.firstIndex { $0.hasPrefix("COPY Sources") })
        let compile = try XCTUnwrap(build.firstIndex { $0.contains("swift build") })
        XCTAssertLessThan(manifest, sources)
        XCTAssertLessThan(sources, compile)
        XCTAssertTrue(build[compile].contains("--static-swift-stdlib"))

        let workingDirectory = try XCTUnwrap(runtime.last { $0.hasPrefix("WORKDIR ") }?.dropFirst("WORKDIR ".count))
        let user = try XCTUnwrap(runtime.last { $0.hasPrefix("USER ") }?.dropFirst("USER ".count))
        XCTAssertNotEqual(user, "root")
        let cacheVariable = try XCTUnwrap(runtime.first { $0.hasPrefix("ENV RICHPUSH_CACHE_DIR=") })
        XCTAssertTrue(cacheVariable.dropFirst("ENV RICHPUSH_CACHE_DIR=".count).hasPrefix(workingDirectory + "/"))
        let health = try XCTUnwrap(runtime.first { $0.hasPrefix("HEALTHCHECK ") })
        XCTAssertTrue(health.contains("/healthz"), health)
        // Issue 36 item 5: the health check probes the probe listener of the default and the documented commands.
        let probePort = try XCTUnwrap(health.firstMatch(of: /127\.0\.0\.1:(\d+)\/healthz/)?.1, health)
        let defaultCommand = try XCTUnwrap(runtime.last { $0.hasPrefix("CMD ") })
        XCTAssertTrue(defaultCommand.contains(#""--metrics-listen", "127.0.0.1:\#(probePort)""#), defaultCommand)
        let documented = try String(contentsOf: dockerfile, encoding: .utf8)
        XCTAssertTrue(documented.contains("--metrics-listen 0.0.0.0:\(probePort)"), "the documented command's probe port")
        XCTAssertTrue(runtime.contains { $0.hasPrefix("RUN ") && $0.contains(" curl") }, "the health check's curl is installed")

        let text = try String(contentsOf: dockerfile, encoding: .utf8)
        XCTAssertFalse(text.contains("cdn.example.com"), "no placeholder public base URL")
        let command = try XCTUnwrap(runtime.last { $0.hasPrefix("CMD ") })
        XCTAssertFalse(command.contains("public-base-url"), "required from the environment, never baked in")

        let ignored = try String(contentsOf: packageRoot.appendingPathComponent(".dockerignore"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        for entry in [".build/", ".git/", "docs/", "*.md"] { XCTAssertTrue(ignored.contains(entry), "\(entry) not in .dockerignore") }
    }

    func testTheRuntimeUserCanWriteTheCacheFromTheWorkingDirectory() throws {
        let (_, runtime) = try stages()
        let step = try XCTUnwrap(runtime.first { $0.hasPrefix("RUN ") && $0.contains("useradd") })
        let workingDirectory = String(try XCTUnwrap(runtime.last { $0.hasPrefix("WORKDIR ") }).dropFirst("WORKDIR ".count))
        let user = String(try XCTUnwrap(runtime.last { $0.hasPrefix("USER ") }).dropFirst("USER ".count))
        let cacheDirectory = String(try XCTUnwrap(runtime.first { $0.hasPrefix("ENV RICHPUSH_CACHE_DIR=") })
            .dropFirst("ENV RICHPUSH_CACHE_DIR=".count))

        // A root like debian:12-slim's: root alone in the account files, /var/lib present and world-readable.
        let root = try makeTemporaryDirectory("image-root")
        let manager = FileManager.default
        for folder in ["etc", "var/lib", "usr/sbin"] {
            try manager.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        let accounts = ["passwd": "root:x:0:0:root:/root:/bin/bash\n", "group": "root:x:0:\n", "shadow": "root:*:19000:0:99999:7:::\n",
                        "gshadow": "root:*::\n"]
        for (file, text) in accounts { try Data(text.utf8).write(to: root.appendingPathComponent("etc/\(file)")) }
        try manager.copyItem(atPath: "/etc/login.defs", toPath: root.appendingPathComponent("etc/login.defs").path)
        try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: root.path)

        // The step, each command run inside the root: useradd with --prefix; install with absolute paths under the root
        // and owner names as the root's ids (the host's account files do not know them).
        func identifier(of name: String, in file: String) throws -> String? {
            try String(contentsOf: root.appendingPathComponent("etc/\(file)"), encoding: .utf8).split(separator: "\n")
                .first { $0.hasPrefix(name + ":") }.map { String($0.split(separator: ":", omittingEmptySubsequences: false)[2]) }
        }
        for command in step.dropFirst("RUN ".count).components(separatedBy: "&&") {
            var words = command.split(separator: " ").map(String.init)
            XCTAssertTrue(["useradd", "install"].contains(words.first), "an unexpected command in the user step: \(command)")
            if words.first == "useradd" {
                words.insert(contentsOf: ["--prefix", root.path], at: 1)
            } else {
                for (index, word) in words.enumerated() where index > 0 {
                    if words[index - 1] == "-o" { words[index] = try identifier(of: word, in: "passwd") ?? word }
                    if words[index - 1] == "-g" { words[index] = try identifier(of: word, in: "group") ?? word }
                }
                words = words.map { $0.hasPrefix("/") ? root.path + $0 : $0 }
            }
            let status = try runTool("/usr/bin/env", words)
            XCTAssertEqual(status.status, 0, "\(words.joined(separator: " ")): \(status.output)")
        }
        let uid = try XCTUnwrap(try identifier(of: user, in: "passwd"), "useradd made no \(user)")
        let gid = try XCTUnwrap(try identifier(of: user, in: "group"))
        let entry = try String(contentsOf: root.appendingPathComponent("etc/passwd"), encoding: .utf8)
            .split(separator: "\n").first { $0.hasPrefix(user + ":") }
        let fields = try XCTUnwrap(entry).split(separator: ":", omittingEmptySubsequences: false)
        XCTAssertNotEqual(uid, "0")
        XCTAssertEqual(String(fields[5]), workingDirectory, "the working directory is the user's home")

        // The binary as that user, from the working directory, with the image's cache variable: the cache fills.
        // (The binary and the toolchain's libraries are readable by everyone; the job needs no fetch.)
        let process = CommandRunner.makeProcess([], environment: [:], workingDirectory: URL(fileURLWithPath: root.path + workingDirectory))
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["setpriv", "--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", "--",
                             CommandRunner.executable.path, "process", "--public-base-url", "https://media-cdn.test/rp", "-"]
        process.environment?["RICHPUSH_CACHE_DIR"] = root.path + cacheDirectory
        let input = Pipe(), output = Pipe(), errors = Pipe()
        (process.standardInput, process.standardOutput, process.standardError) = (input, output, errors)
        try process.run()
        input.fileHandleForWriting.write(Data((#"{"id":"d1","payload":{"aps":{"alert":"hi"}}}"# + "\n").utf8))
        try input.fileHandleForWriting.close()
        let result = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, log)
        XCTAssertTrue(result.contains(#""status":"passthrough""#), result + log)
        XCTAssertFalse(log.contains("Permission denied"), log)
        let made = try manager.contentsOfDirectory(atPath: root.path + cacheDirectory)
        XCTAssertTrue(made.contains("tmp") || made.contains("objects"), "the cache was created: \(made)")
        let owner = try manager.attributesOfItem(atPath: root.path + cacheDirectory)[.ownerAccountID] as? Int
        XCTAssertEqual(owner.map(String.init), uid)
    }
}
