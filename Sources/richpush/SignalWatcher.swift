import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Turns the first SIGTERM or SIGINT into a graceful stop, and a second one into an immediate exit.
final class SignalWatcher: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []
    private let lock = NSLock()
    private var received = 0

    /// `onFirstSignal` runs once, on a dispatch queue, when the first signal arrives.
    init(onFirstSignal: @escaping @Sendable (Int32) -> Void) {
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { [self] in
                lock.lock()
                received += 1
                let count = received
                lock.unlock()
                if count == 1 {
                    onFirstSignal(signalNumber)
                } else {
                    StandardError.write("richpush: second signal, exiting now\n")
                    exit(128 + signalNumber)
                }
            }
            source.resume()
            sources.append(source)
        }
    }

    var signalReceived: Bool {
        lock.lock()
        defer { lock.unlock() }
        return received > 0
    }
}
