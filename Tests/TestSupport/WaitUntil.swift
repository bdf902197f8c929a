import Foundation
import XCTest

/// A condition a test waited for did not hold in time.
public struct WaitTimedOut: Error, CustomStringConvertible {
    public let what: String
    public let timeout: Duration

    public init(what: String, timeout: Duration) {
        self.what = what
        self.timeout = timeout
    }

    public var description: String { "timed out after \(timeout) waiting for \(what)" }
}

/// Polls `condition` every `interval` until it holds; after `timeout` records a test failure and throws
/// `WaitTimedOut`, so the test stops instead of checking a state that never came.
public func waitUntil(
    timeout: Duration, _ what: String, interval: Duration = .milliseconds(50), file: StaticString = #filePath,
    line: UInt = #line, _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: interval)
    }
    let error = WaitTimedOut(what: what, timeout: timeout)
    XCTFail(error.description, file: file, line: line)
    throw error
}

/// The synchronous twin of `waitUntil`, for tests that drive child processes, sockets or pipes from their own thread:
/// polls `condition` every `interval` until it holds, sleeping the calling thread in between; after `timeout` (and one
/// last look) records a test failure and throws `WaitTimedOut`. Its own name, so that an async test's
/// `try await waitUntil` never picks it for a synchronous condition and blocks its thread instead of suspending.
public func blockingWaitUntil(
    timeout: Duration, _ what: String, interval: Duration = .milliseconds(10), file: StaticString = #filePath,
    line: UInt = #line, _ condition: () throws -> Bool
) throws {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try condition() { return }
        if ContinuousClock.now >= deadline { break }
        usleep(useconds_t(interval / .microseconds(1)))
    }
    let error = WaitTimedOut(what: what, timeout: timeout)
    XCTFail(error.description, file: file, line: line)
    throw error
}

extension Process {
    /// Sends SIGTERM, waits up to `grace` for the process to exit, then kills it (SIGKILL) and reaps it, waiting up to
    /// 10 s more (a process SIGKILL does not end is stuck in the kernel: it is reported on standard error and left).
    ///
    /// Polls instead of calling `waitUntilExit`, which spins a run loop when called from async code.
    public func terminate(waitingAtMost grace: Duration) {
        guard isRunning else { return }
        terminate()
        let limit = ContinuousClock.now + grace
        while isRunning && ContinuousClock.now < limit { usleep(10_000) }
        guard isRunning else { return }
        kill(processIdentifier, SIGKILL)
        let killLimit = ContinuousClock.now + .seconds(10)
        while isRunning && ContinuousClock.now < killLimit { usleep(10_000) }
        if isRunning {
            FileHandle.standardError.write(Data("process \(processIdentifier) still runs 10 s after SIGKILL\n".utf8))
        }
    }
}
