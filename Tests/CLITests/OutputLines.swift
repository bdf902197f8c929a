import Foundation
import XCTest
import TestSupport

/// A child's output, read on a thread of its own and split into lines as they arrive, so that a test can wait for
/// the first results while the child still runs (its input open, or after a signal) and then for the end.
final class OutputLines: @unchecked Sendable {
    private let condition = NSCondition()
    private var lines: [String] = []
    private var ended = false

    /// Starts reading `handle` until its end of file (every holder of the pipe's write end has closed it).
    init(_ handle: FileHandle) {
        Thread { [self] in
            var pending = Data()
            while case let chunk = handle.availableData, !chunk.isEmpty {
                pending += chunk
                var complete: [String] = []
                while let newline = pending.firstIndex(of: 0x0A) {
                    complete.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                    pending = Data(pending[(newline + 1)...])
                }
                guard !complete.isEmpty else { continue }
                condition.lock()
                lines += complete
                condition.broadcast()
                condition.unlock()
            }
            condition.lock()
            // A last line without a newline still counts.
            if !pending.isEmpty { lines.append(String(decoding: pending, as: UTF8.self)) }
            ended = true
            condition.broadcast()
            condition.unlock()
        }.start()
    }

    /// The complete lines read so far.
    var all: [String] {
        condition.lock()
        defer { condition.unlock() }
        return lines
    }

    /// Whether at least `count` lines arrived within `timeout`.
    func wait(forCount count: Int, timeout: Duration) -> Bool {
        wait(timeout: timeout) { $0.lines.count >= count }
    }

    /// Every line, once the output has ended; fails the test naming `what` instead of hanging it if the output is
    /// still open after `timeout` (something still holds the pipe).
    func waitForEnd(_ what: String, timeout: Duration = .seconds(30), file: StaticString = #filePath,
                    line: UInt = #line) throws -> [String] {
        guard wait(timeout: timeout, until: { $0.ended }) else {
            let error = WaitTimedOut(what: "the end of \(what)", timeout: timeout)
            XCTFail(error.description, file: file, line: line)
            throw error
        }
        return all
    }

    private func wait(timeout: Duration, until satisfied: (OutputLines) -> Bool) -> Bool {
        let limit = Date().addingTimeInterval(Double(timeout.components.seconds))
        condition.lock()
        defer { condition.unlock() }
        while !satisfied(self) {
            if !condition.wait(until: limit) { return satisfied(self) }
        }
        return true
    }
}
