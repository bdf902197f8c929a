import Foundation
import RichPush
#if canImport(Glibc)
import Glibc
#endif

/// Turns the first SIGTERM or SIGINT into a graceful stop, and a second one into an immediate exit.
///
/// A handler that writes the signal's number to a pipe, read by a thread of its own (the self-pipe pattern).
/// Why not a dispatch signal source: on Linux it reads a signalfd, which sees only signals that every thread
/// blocks. It needed the signal set to SIG_IGN, and a signal that the kernel delivered to any thread not
/// blocking it (a pool thread, a render or libcurl thread) was then dropped: under load a SIGTERM could be lost.
/// A handler runs on whichever thread takes the signal, so none is lost.
final class SignalWatcher: @unchecked Sendable {
    private let lock = NSLock()
    private var received = 0

    /// `onFirstSignal` runs once, on the watcher's thread, when the first signal arrives.
    init(onFirstSignal: @escaping @Sendable (Int32) -> Void) {
        guard let readEnd = SignalPipe.open() else {
            Logger.error("signals", "cannot watch for signals (no pipe); SIGTERM will stop the process at once")
            return
        }
        let thread = Thread { [self] in
            var signalNumber: Int32 = 0
            while true {
                let count = read(readEnd, &signalNumber, MemoryLayout<Int32>.size)
                if count < 0 && errno == EINTR { continue }
                guard count == MemoryLayout<Int32>.size else { return }
                lock.lock()
                received += 1
                let total = received
                lock.unlock()
                if total == 1 {
                    onFirstSignal(signalNumber)
                } else {
                    Logger.error("second_signal", "second signal, exiting now; work in flight is abandoned", [("signal", .number(String(signalNumber)))])
                    exit(128 + signalNumber)
                }
            }
        }
        thread.name = "richpush-signals"
        thread.start()
        for signalNumber in [SIGTERM, SIGINT] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = SignalPipe.handler
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(signalNumber, &action, nil)
        }
    }

    var signalReceived: Bool {
        lock.lock()
        defer { lock.unlock() }
        return received > 0
    }
}

/// The pipe the signal handler writes to. Process-wide, like signal handlers themselves; opened once.
private enum SignalPipe {
    /// The write end, read by the handler (which may only make async-signal-safe calls, such as `write`).
    nonisolated(unsafe) static var writeEnd: Int32 = -1

    /// Opens the pipe and returns its read end, or nil.
    static func open() -> Int32? {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }   // children (moto, nginx in tests) must not hold it
        writeEnd = ends[1]
        return ends[0]
    }

    /// Writes the number and leaves `errno` as the interrupted code had it.
    static let handler: @convention(c) (Int32) -> Void = { signalNumber in
        let savedErrno = errno
        var number = signalNumber
        _ = write(SignalPipe.writeEnd, &number, MemoryLayout<Int32>.size)
        errno = savedErrno
    }
}
