import Foundation
import RichPush
import TestSupport
import XCTest

/// Hostile media must not keep render threads busy after their job has returned, or later valid images starve.
final class RenderStarvationTests: XCTestCase {
    /// Two PNGs whose zlib streams inflate to gigabytes of zeros after the last row, then two valid images a
    /// second later, all at `--deadline 2s` on a worker with one render thread per core.
    func testPNGBombsLeaveTheWorkerIdleByTheirDeadlineAndLaterImagesRender() throws {
        let directory = try makeTemporaryDirectory("starve")
        let media = directory.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        // 6 GB of zeros after the rows: about 6 MB of file, and tens of seconds of inflating for libpng.
        let bomb = PNGBomb.trailingZeros(width: 1000, height: 1000, trailingZeroBytes: 6 << 30)
        try bomb.write(to: media.appendingPathComponent("bomb.png"))
        // The issue's valid image: an 800x600 JPEG (cut from a fixture photo).
        let photo = try Data(contentsOf: packageRoot.appendingPathComponent("Fixtures/media/hero.jpg"))
        let valid = try ImagePipeline().renderBlocking(
            photo, as: ImageVariant(name: "valid", width: 800, height: 600, fit: .cover, format: .jpeg),
            deadline: .now + .seconds(60))
        try valid.bytes.write(to: media.appendingPathComponent("valid.jpg"))

        let process = CommandRunner.makeProcess([
            "process", "--deadline", "2s", "--local-origin", "https://media.example/=\(media.path)",
            "--cache-dir", directory.appendingPathComponent("cache").path,
        ], environment: [:], workingDirectory: nil)
        let standardInput = Pipe(), standardOutput = Pipe()
        process.standardInput = standardInput
        process.standardOutput = standardOutput
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let lines = OutputLines(standardOutput.fileHandleForReading)

        func send(_ id: String, _ url: String) {
            let job = #"{"id":"\#(id)","payload":{"aps":{"alert":{"title":"T","body":"B"}},"image_url":"\#(url)"}}"#
            standardInput.fileHandleForWriting.write(Data(job.utf8 + [10]))
        }
        // Once the worker has started up and waits on its input, a job starts as it is written, so the bombs'
        // deadline is known from here.
        try Self.waitUntilIdle(process.processIdentifier)
        let started = ContinuousClock.now
        // A query per job makes each a distinct source (no shared single-flight, no negative entry).
        send("bomb-1", "https://media.example/bomb.png?n=1")
        send("bomb-2", "https://media.example/bomb.png?n=2")
        // The issue's timeline, not a wait for a state: the valid images come a second after the bombs, so their own
        // 2 s deadline lies a second past the bombs'.
        Thread.sleep(until: started + .seconds(1))
        send("valid-1", "https://media.example/valid.jpg?n=1")
        send("valid-2", "https://media.example/valid.jpg?n=2")

        // Once every job has its result the worker must be idle: nothing is left to do. A render thread still inflating
        // a bomb (tens of seconds of it) stays running; an idle worker has every thread asleep.
        XCTAssertTrue(lines.wait(forCount: 4, timeout: .seconds(10)), "\(lines.all)")
        try blockingWaitUntil(timeout: .seconds(2), "every thread of the worker to be asleep after the last result") {
            try Self.runningThreads(of: process.processIdentifier) == 0
        }

        try standardInput.fileHandleForWriting.close()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        let results = try lines.waitForEnd("the worker's standard output").map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        XCTAssertEqual(results.map { $0["id"] as? String }, ["bomb-1", "bomb-2", "valid-1", "valid-2"])
        for result in results {
            let total = (result["timings"] as? [String: Any])?["total_ms"] as? Int ?? .max
            XCTAssertLessThanOrEqual(total, 3_000, "\(result)")   // by the 2 s deadline, with a second of margin
        }
        for result in results.suffix(2) {
            XCTAssertEqual(result["status"] as? String, "enriched", "\(result)")
            XCTAssertEqual((result["media"] as? [[String: Any]])?.first?["status"] as? String, "rendered", "\(result)")
        }
    }

    /// Issue 36 item 1: four 40 MP JPEGs of 491 scans each (under the scan cap, 8.8-9.8 CPU-seconds of decoding each
    /// before) sent with eight valid jobs. Each flood is refused from its headers (`decode_work_too_large`), so the
    /// valid jobs render as if it were not there.
    func testScanFloodsAreRefusedFromTheirHeadersAndValidJobsRender() throws {
        let directory = try makeTemporaryDirectory("flood")
        let media = directory.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        try JPEGScanFlood.jpeg(width: 7300, height: 5475, scans: 491).write(to: media.appendingPathComponent("flood.jpg"))
        try Data(contentsOf: packageRoot.appendingPathComponent("Fixtures/media/hero.jpg"))
            .write(to: media.appendingPathComponent("valid.jpg"))
        var input = ""
        for index in 0..<12 {
            let name = index % 3 == 0 ? "flood" : "valid"
            input += #"{"id":"\#(name)-\#(index)","payload":{"aps":{"alert":{"title":"T","body":"B"}},"image_url":"https://media.example/\#(name).jpg?n=\#(index)"}}"# + "\n"
        }
        let output = try CommandRunner.run(
            ["process", "--local-origin", "https://media.example/=\(media.path)",
             "--cache-dir", directory.appendingPathComponent("cache").path],
            input: input)
        XCTAssertEqual(output.lines.count, 12, output.standardError)
        let results = try output.lines.map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        for result in results {
            let id = try XCTUnwrap(result["id"] as? String)
            let media = try XCTUnwrap((result["media"] as? [[String: Any]])?.first)
            if id.hasPrefix("flood") {
                XCTAssertEqual((media["error"] as? [String: Any])?["code"] as? String, "decode_work_too_large", "\(result)")
            } else {
                XCTAssertEqual(result["status"] as? String, "enriched", "\(result)")
            }
        }
        XCTAssertFalse(output.standardError.contains("local_fault"), output.standardError)
    }

    /// Returns once the process has used no CPU for 200 ms (it has started up and waits for input).
    private static func waitUntilIdle(_ pid: Int32) throws {
        let limit = ContinuousClock.now + .seconds(30)
        var last = try cpuTime(of: pid)
        repeat {
            // The window the CPU time is compared over (it counts in 10 ms ticks), inside a bounded wait.
            Thread.sleep(forTimeInterval: 0.2)
            let now = try cpuTime(of: pid)
            if now == last { return }
            last = now
        } while ContinuousClock.now < limit
        XCTFail("the worker never became idle")
    }

    /// Threads of a process running or ready to run right now (state R in /proc/PID/task/TID/stat).
    private static func runningThreads(of pid: Int32) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").filter { thread in
            // A thread that ended since the listing has no stat any more: it runs nothing.
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/stat", encoding: .utf8) else { return false }
            // The state follows the command name, which is in parentheses and may hold spaces.
            return stat.split(separator: ")").last?.split(separator: " ").first == "R"
        }.count
    }

    /// User plus system CPU time of a running process, from /proc (clock-tick resolution, 10 ms).
    private static func cpuTime(of pid: Int32) throws -> Duration {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // Fields after the command name, which is in parentheses and may hold spaces: state is [0], utime [11].
        let fields = try XCTUnwrap(stat.split(separator: ")").last).split(separator: " ")
        let ticks = try XCTUnwrap(Int(fields[11])) + XCTUnwrap(Int(fields[12]))
        return .milliseconds(ticks * 1000 / sysconf(Int32(_SC_CLK_TCK)))
    }
}

private extension Thread {
    static func sleep(until instant: ContinuousClock.Instant) {
        let remaining = ContinuousClock.now.duration(to: instant)
        if remaining > .zero { Thread.sleep(forTimeInterval: Double(remaining.components.seconds) + Double(remaining.components.attoseconds) / 1e18) }
    }
}
