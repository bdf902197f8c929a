import Foundation
import RichPush
#if canImport(Glibc)
import Glibc
#endif

/// Reads lines from files or standard input on a thread of its own, so blocking reads never occupy the
/// cooperative thread pool, and hands them over as an `AsyncStream` of batches (the lines of one read) with bounded
/// read-ahead.
final class LineReader: @unchecked Sendable {
    // The condition's lock guards `stopped`, `waiting` and every yield, so no line is yielded after `stop()`
    // returns: each line handed over before that is processed, and none read after it is handed over.
    private let condition = NSCondition()
    private var stopped = false
    /// Lines handed over and not yet taken by a worker.
    private var waiting = 0
    private let readAhead: Int
    private let continuation: AsyncStream<[Data]>.Continuation
    let lines: AsyncStream<[Data]>
    private let paths: [String]
    private let maximumLineBytes: Int
    private(set) var failure: String?

    /// - Parameters:
    ///   - paths: files to read in order; empty or `-` means standard input.
    ///   - readAhead: how many lines may wait for a worker before reading pauses (one read's lines may go past it).
    ///   - maximumLineBytes: a longer line is handed over cut to this many bytes plus one, so the enricher
    ///     rejects it; the rest of it is read and dropped, never buffered.
    init(paths: [String], readAhead: Int, maximumLineBytes: Int) {
        self.paths = paths.isEmpty ? ["-"] : paths
        self.readAhead = max(1, readAhead)
        self.maximumLineBytes = max(1, maximumLineBytes)
        (lines, continuation) = AsyncStream.makeStream(of: [Data].self, bufferingPolicy: .unbounded)
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

    /// Hands a batch of lines over, first waiting while the read-ahead is full; false once stopped.
    private func handOver(_ lines: [Data]) -> Bool {
        guard !lines.isEmpty else { return true }
        condition.lock()
        defer { condition.unlock() }
        while waiting >= readAhead && !stopped { condition.wait() }
        if stopped { return false }
        waiting += lines.count
        continuation.yield(lines)
        return true
    }

    private func readFile(_ path: String) -> Bool {
        let descriptor = path == "-" ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            failure = "cannot open \(path): \(String(cString: strerror(errno)))"
            return false
        }
        defer { close(descriptor) }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var splitter = LineSplitter(maximumLineBytes: maximumLineBytes)
        var batch: [Data] = []
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                if count < 0 { failure = "cannot read \(path): \(String(cString: strerror(errno)))" }
                splitter.finish { batch.append($0); return true }
                return handOver(batch) && count == 0
            }
            _ = splitter.feed(chunk[..<count]) { batch.append($0); return true }
            guard handOver(batch) else { return false }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
