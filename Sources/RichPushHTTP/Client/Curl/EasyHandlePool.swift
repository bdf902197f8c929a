import CCurl
import Synchronization

/// Recycles libcurl easy handles between transfers.
///
/// A fresh handle costs several allocations, including its 64 KiB receive buffer; under load that churn (and the
/// page faults behind it) is a visible share of the CPU per fetch. `curl_easy_reset` clears every option, callback
/// and context pointer but keeps the allocations. That makes a handle as good as new only after libcurl finished
/// its transfer: one removed while it waited for a connection keeps transfer state that `curl_easy_reset` leaves
/// behind (libcurl 7.88 then refuses `CURLOPT_BUFFERSIZE` on it), so only completed handles come back here and
/// every other one is freed.
final class EasyHandlePool: Sendable {
    private struct State {
        var idle: [UInt] = []   // handle addresses; raw pointers are not Sendable
        var isClosed = false
    }

    private let state = Mutex(State())
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// A reset handle from the pool, or a new one, and whether it was recycled; nil only if libcurl cannot
    /// allocate.
    func take() -> (handle: UnsafeMutableRawPointer, isRecycled: Bool)? {
        let recycled = state.withLock { $0.idle.popLast() }
        if let recycled, let handle = UnsafeMutableRawPointer(bitPattern: recycled) { return (handle, true) }
        return curl_easy_init().map { ($0, false) }
    }

    /// A new handle, never a recycled one; nil only if libcurl cannot allocate.
    func takeNew() -> UnsafeMutableRawPointer? {
        curl_easy_init()
    }

    /// Returns a handle whose transfer libcurl completed and that is no longer attached to a multi handle.
    /// Safe from any thread.
    func recycle(_ handle: UnsafeMutableRawPointer) {
        curl_easy_reset(handle)
        let kept = state.withLock { state -> Bool in
            guard !state.isClosed, state.idle.count < capacity else { return false }
            state.idle.append(UInt(bitPattern: handle))
            return true
        }
        if !kept { curl_easy_cleanup(handle) }
    }

    /// Frees a handle that must not be reused: its transfer was aborted, or it refused an option.
    func discard(_ handle: UnsafeMutableRawPointer) {
        curl_easy_cleanup(handle)
    }

    /// Frees every idle handle; handles returned later are freed immediately.
    func close() {
        let idle = state.withLock { state -> [UInt] in
            state.isClosed = true
            defer { state.idle = [] }
            return state.idle
        }
        for address in idle {
            if let handle = UnsafeMutableRawPointer(bitPattern: address) { curl_easy_cleanup(handle) }
        }
    }
}
