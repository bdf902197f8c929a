import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads lines from files or standard input on a thread of its own, so blocking reads never occupy the
/// cooperative thread pool, and hands them over as an `AsyncStream` with bounded read-ahead.
final class LineReader: @unchecked Sendable {
    // The condition's lock guards `stopped`, `waiting` and every yield, so no line is yielded after `stop()`
    // returns: each line handed over before that is processed, and none read after it is handed over.
    private let condition = NSCondition()
    private var stopped = false
    /// Lines handed over and not yet taken by a worker.
    private var waiting = 0
    private let readAhead: Int
    private let continuation: AsyncStream<Data>.Continuation
    let lines: AsyncStream<Data>
    private let paths: [String]
    private(set) var failure: String?

    /// - Parameters:
    ///   - paths: files to read in order; empty or `-` means standard input.
    ///   - readAhead: how many lines may wait for a worker before reading pauses.
    init(paths: [String], readAhead: Int) {
        self.paths = paths.isEmpty ? ["-"] : paths
        self.readAhead = max(1, readAhead)
        (lines, continuation) = AsyncStream.makeStream(of: Data.self, bufferingPolicy: .unbounded)
    }

    /// Starts the reading thread. Unreadable files end the stream early and are reported through `failure`.
    func start() {
        let thread = Thread { [self] in
            for path in paths {
                guard readFile(path) else { break }
            }
            finish()
        }
        thread.name = "richpush-line-reader"
        thread.start()
    }

    /// Stops reading: lines already handed over are still processed; the stream then ends.
    func stop() { finish() }

    /// Called by the consumer for each line it takes. A paused reader resumes only once half the read-ahead is free:
    /// waking it for every line cost a futex wake and a context switch per line.
    func consumed() {
        condition.lock()
        waiting -= 1
        if waiting == readAhead / 2 { condition.signal() }
        condition.unlock()
    }

    private func finish() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
        continuation.finish()
    }

    /// Hands one line over, first waiting while the read-ahead is full; false once stopped.
    private func handOver(_ line: Data) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while waiting >= readAhead && !stopped { condition.wait() }
        if stopped { return false }
        waiting += 1
        continuation.yield(line)
        return true
    }

    private func readFile(_ path: String) -> Bool {
        let file: UnsafeMutablePointer<FILE>?
        if path == "-" {
            file = fdopen(dup(STDIN_FILENO), "r")
        } else {
            file = fopen(path, "r")
        }
        guard let file else {
            failure = "cannot open \(path): \(String(cString: strerror(errno)))"
            return false
        }
        defer { fclose(file) }
        var buffer: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(buffer) }
        while true {
            let length = getline(&buffer, &capacity, file)
            guard length >= 0, let buffer else { return true }
            var end = length
            if end > 0 && buffer[end - 1] == 0x0A { end -= 1 }
            if end > 0 && buffer[end - 1] == 0x0D { end -= 1 }
            guard handOver(Data(bytes: buffer, count: end)) else { return false }
        }
    }
}
