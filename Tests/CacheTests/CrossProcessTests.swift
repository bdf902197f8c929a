import Foundation
import XCTest

import RichPush
@testable import RichPushCore
@testable import RichPushCache
@testable import RichPushHTTP
@testable import RichPushPipeline

#if canImport(Glibc)
import Glibc
import TestSupport
#endif

/// Several real processes sharing one cache root: the test binary re-executes itself as `CrossProcessWorker`.
final class CrossProcessTests: XCTestCase {
    private func testBinary() throws -> String {
        try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    }

    private func startWorker(
        root: URL, mode: String, keyCount: Int, productions: URL, output: URL?, startSignal: URL?, log: URL
    ) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try testBinary())
        process.arguments = [CrossProcessWorker.testName]
        var environment = ProcessInfo.processInfo.environment
        environment[CrossProcessWorker.Environment.root] = root.path
        environment[CrossProcessWorker.Environment.mode] = mode
        environment[CrossProcessWorker.Environment.keyCount] = String(keyCount)
        environment[CrossProcessWorker.Environment.productions] = productions.path
        environment[CrossProcessWorker.Environment.output] = output?.path
        environment[CrossProcessWorker.Environment.startSignal] = startSignal?.path
        process.environment = environment
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        return process
    }

    private func waitForExit(_ process: Process, timeout: Duration) async throws {
        let limit = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now > limit {
                kill(process.processIdentifier, SIGKILL)
                XCTFail("worker \(process.processIdentifier) did not finish in time")
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    func testEightProcessesProduceEachOfFiftyKeysExactlyOnce() async throws {
        let root = try makeTemporaryDirectory()
        let work = try makeTemporaryDirectory()
        let cacheRoot = root.appendingPathComponent("cache")
        let productions = work.appendingPathComponent("productions.log")
        let startSignal = work.appendingPathComponent("start")
        let keyCount = 50
        var workers: [Process] = []
        for index in 0..<8 {
            workers.append(
                try startWorker(
                    root: cacheRoot, mode: "single-flight", keyCount: keyCount, productions: productions,
                    output: work.appendingPathComponent("output-\(index).txt"), startSignal: startSignal,
                    log: work.appendingPathComponent("worker-\(index).log")))
        }
        // Release all workers at once, once each waits for the signal, so they really race for the same keys.
        try await waitUntil(timeout: .seconds(120), "the 8 workers to be ready", interval: .milliseconds(10)) {
            workers.allSatisfy { FileManager.default.fileExists(atPath: CrossProcessWorker.readyPath(startSignal.path, pid: $0.processIdentifier)) }
        }
        _ = FileManager.default.createFile(atPath: startSignal.path, contents: nil)
        for (index, worker) in workers.enumerated() {
            try await waitForExit(worker, timeout: .seconds(60))
            let log = (try? String(contentsOf: work.appendingPathComponent("worker-\(index).log"), encoding: .utf8)) ?? ""
            XCTAssertEqual(worker.terminationStatus, 0, "worker \(index) failed:\n\(log.suffix(2000))")
            XCTAssertTrue(log.contains("testWorkerEntryPoint' passed"), "worker \(index) did not run the entry point")
        }

        let lines = try String(contentsOf: productions, encoding: .utf8).split(separator: "\n")
        let producedKeys = lines.compactMap { Int($0.split(separator: " ").first ?? "") }
        XCTAssertEqual(producedKeys.count, keyCount, "each key produced exactly once across 8 processes")
        XCTAssertEqual(Set(producedKeys), Set(0..<keyCount))
        let producers = Set(lines.compactMap { $0.split(separator: " ").last.map(String.init) })
        // Which processes won the locks is timing-dependent, so it is reported rather than asserted.
        print("cross-process single-flight: \(producers.count) of 8 processes produced keys")

        let outputs = try (0..<8).map {
            try String(contentsOf: work.appendingPathComponent("output-\($0).txt"), encoding: .utf8)
        }
        XCTAssertEqual(outputs[0].split(separator: "\n").count, keyCount)
        for output in outputs.dropFirst() {
            XCTAssertEqual(output, outputs[0], "every process got byte-identical results")
        }
        let store = try FileMediaStore(configuration: makeConfiguration(root: cacheRoot))
        for (index, line) in outputs[0].split(separator: "\n").enumerated() {
            let object = try await store.lookup(key(CrossProcessWorker.sharedURL(index)))
            XCTAssertEqual(line.split(separator: " ").last.map(String.init), object?.contentSHA256)
        }
        let report = try await store.verify(repair: false)
        XCTAssertEqual(report.problemCount, 0)
        XCTAssertEqual(report.healthyObjects, keyCount)
        let statistics = try await store.statistics()
        XCTAssertEqual(statistics.misses, keyCount)
        XCTAssertEqual(statistics.hits + statistics.misses, 8 * keyCount)
    }

    func testWriterKilledMidPublishLeavesNoTornObjects() async throws {
        let root = try makeTemporaryDirectory()
        let work = try makeTemporaryDirectory()
        let cacheRoot = root.appendingPathComponent("cache")
        let keyCount = 6
        var leftoversSeen = 0
        for round in 0..<10 {
            let productions = work.appendingPathComponent("productions-\(round).log")
            let worker = try startWorker(
                root: cacheRoot, mode: "writer", keyCount: keyCount, productions: productions, output: nil,
                startSignal: nil, log: work.appendingPathComponent("writer-\(round).log"))
            // Wait until it is writing, then kill it at a random point.
            let limit = ContinuousClock.now + .seconds(20)
            while (try? Data(contentsOf: productions))?.isEmpty ?? true {
                guard ContinuousClock.now < limit else { return XCTFail("round \(round): the writer never produced") }
                try await Task.sleep(for: .milliseconds(2))
            }
            // A random point of the writer's work to kill it at: the scenario, not a wait for a state.
            try await Task.sleep(for: .microseconds(Int.random(in: 0...60_000)))
            kill(worker.processIdentifier, SIGKILL)
            worker.waitUntilExit()
            XCTAssertEqual(worker.terminationReason, .uncaughtSignal)

            var configuration = makeConfiguration(root: cacheRoot)
            configuration.defaultTTL = .zero  // like the writer, so the next round's writer re-renders too
            let store = try FileMediaStore(configuration: configuration)
            // Whatever a reader would serve right now is whole.
            for index in 0..<keyCount {
                if let object = try await store.lookup(key(CrossProcessWorker.crashURL(index))) {
                    XCTAssertEqual(SHA256.hexDigest(of: try storedBytes(store, object)), object.contentSHA256)
                }
            }
            let report = try await store.verify(repair: false)
            XCTAssertEqual(report.mismatchedObjects, [], "round \(round): torn objects")
            XCTAssertEqual(report.unreadableMetadata, [], "round \(round)")
            XCTAssertEqual(report.skippedInUse, [], "a dead writer holds no lock")
            leftoversSeen += report.temporaryLeftovers.count + report.orphanObjects.count
            _ = try await store.verify(repair: true)
            let clean = try await store.verify(repair: false)
            XCTAssertEqual(clean.problemCount, 0, "round \(round)")

            // The next request renders again (the writer's objects are stale, and the key it was killed in has no
            // servable object) and serves whole bytes.
            for index in 0..<keyCount {
                let url = CrossProcessWorker.crashURL(index)
                let outcome = try await store.object(
                    for: key(url), sourceURL: url, variant: "attachment", retainUntil: nil, deadline: farDeadline(),
                    produce: { _ in jpegProduction("after-\(index)") })
                XCTAssertEqual(outcome.kind, "produced")
                XCTAssertEqual(try storedBytes(store, try XCTUnwrap(outcome.object)), fakeJPEG("after-\(index)"))
            }
        }
        print("crash test: \(leftoversSeen) leftovers from interrupted publishes over 10 kills")
    }
}
