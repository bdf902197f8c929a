import Foundation
import Synchronization

/// A thread that runs a pass every 100 ms until stopped: the deadlines libmicrohttpd does not keep. A thread of its
/// own, since a pass takes locks and polls sockets (never on the cooperative pool).
final class HTTPSweeper: Sendable {
    private let isStopped = Atomic<Bool>(false)

    func start(_ pass: @escaping @Sendable () -> Void) {
        let thread = Thread { [self] in
            while !isStopped.load(ordering: .relaxed) {
                usleep(100_000)
                if isStopped.load(ordering: .relaxed) { return }
                pass()
            }
        }
        thread.name = "richpush-http-sweep"
        thread.start()
    }

    func stop() {
        isStopped.store(true, ordering: .relaxed)
    }
}
