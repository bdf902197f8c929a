import Foundation
import XCTest

import RichPush
@testable import RichPushCore
@testable import RichPushCache
@testable import RichPushHTTP
@testable import RichPushPipeline

#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// Entry point for child processes started by `CrossProcessTests`: the parent re-executes this test binary with
/// this single test as its argument and `RICHPUSH_CACHE_WORKER_ROOT` set. In a normal test run the variable is
/// absent and the method is skipped; it is a harness, not a test of its own.
final class CrossProcessWorker: XCTestCase {
    enum Environment {
        static let root = "RICHPUSH_CACHE_WORKER_ROOT"
        static let mode = "RICHPUSH_CACHE_WORKER_MODE"
        static let keyCount = "RICHPUSH_CACHE_WORKER_KEYS"
        static let output = "RICHPUSH_CACHE_WORKER_OUTPUT"
        static let productions = "RICHPUSH_CACHE_WORKER_PRODUCTIONS"
        static let startSignal = "RICHPUSH_CACHE_WORKER_START"
    }

    static let testName = "CacheTests.CrossProcessWorker/testWorkerEntryPoint"

    static func sharedURL(_ index: Int) -> String { "https://origin.test/shared/\(index).jpg" }
    static func crashURL(_ index: Int) -> String { "https://origin.test/crash/\(index).jpg" }

    /// The file a worker creates beside the start signal once it waits for it.
    static func readyPath(_ startSignal: String, pid: Int32) -> String { "\(startSignal).ready-\(pid)" }

    func testWorkerEntryPoint() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let root = environment[Environment.root] else {
            // Reported as skipped, not passed: this is the child half of CrossProcessTests, which start it.
            throw XCTSkip("worker entry point of CrossProcessTests; it runs only as their child process")
        }
        let productionsPath = try XCTUnwrap(environment[Environment.productions])
        let keyCount = Int(environment[Environment.keyCount] ?? "") ?? 50
        if let start = environment[Environment.startSignal] {
            // Ready: the parent gives the start signal once every worker has said so.
            _ = FileManager.default.createFile(atPath: CrossProcessWorker.readyPath(start, pid: getpid()), contents: nil)
            try await waitUntil(timeout: .seconds(120), "the start signal", interval: .milliseconds(2)) {
                FileManager.default.fileExists(atPath: start)
            }
        }
        switch environment[Environment.mode] {
        case "writer":
            try await runWriter(root: root, productionsPath: productionsPath, keyCount: keyCount)
        default:
            let output = try XCTUnwrap(environment[Environment.output])
            try await runSingleFlight(root: root, productionsPath: productionsPath, keyCount: keyCount, output: output)
        }
    }

    /// Requests the same keys as every other worker, concurrently, and writes `index sha256-of-served-bytes` lines.
    private func runSingleFlight(root: String, productionsPath: String, keyCount: Int, output: String) async throws {
        let store = try FileMediaStore(configuration: makeConfiguration(root: URL(fileURLWithPath: root)))
        let results = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in (0..<keyCount).shuffled() {
                group.addTask {
                    let url = Self.sharedURL(index)
                    let outcome = try await store.object(
                        for: key(url), sourceURL: url, variant: "attachment", retainUntil: nil,
                        deadline: .now + .seconds(60),
                        produce: { _ in
                            Self.appendLine("\(index) \(getpid())", to: productionsPath)
                            // The fetch and render: the scenario's slow work, holding the key's lock while the other
                            // processes ask for the key (they race real processes, so no gate can stand in for it).
                            try await Task.sleep(for: .milliseconds(20))
                            return jpegProduction("shared-\(index)-made-by-\(getpid())", size: 4096)
                        })
                    let object = try XCTUnwrap(outcome.object)
                    let served = try storedBytes(store, object)
                    XCTAssertEqual(SHA256.hexDigest(of: served), object.contentSHA256)
                    return (index, SHA256.hexDigest(of: served))
                }
            }
            var all: [(Int, String)] = []
            for try await result in group { all.append(result) }
            return all
        }
        try await store.flushUsage()
        let text = results.sorted { $0.0 < $1.0 }.map { "\($0.0) \($0.1)\n" }.joined()
        try Data(text.utf8).write(to: URL(fileURLWithPath: output))
    }

    /// Re-renders a rotating set of keys forever (TTL zero), with objects large enough that the parent's SIGKILL
    /// lands inside a publish.
    private func runWriter(root: String, productionsPath: String, keyCount: Int) async throws {
        var configuration = makeConfiguration(root: URL(fileURLWithPath: root))
        configuration.defaultTTL = .zero
        let store = try FileMediaStore(configuration: configuration)
        var iteration = 0
        while true {
            let index = iteration % keyCount
            let url = Self.crashURL(index)
            let size = Int.random(in: 64_000...512_000)
            let payload = "crash-\(index)-\(iteration)"
            _ = try await store.object(
                for: key(url), sourceURL: url, variant: "attachment", retainUntil: nil, deadline: .now + .seconds(60),
                produce: { _ in
                    Self.appendLine("\(index) \(getpid())", to: productionsPath)
                    return jpegProduction(payload, size: size)
                })
            iteration += 1
        }
    }

    /// One `write` with O_APPEND: lines from concurrent processes never interleave.
    static func appendLine(_ line: String, to path: String) {
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return }
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
    }
}
