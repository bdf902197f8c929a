import CCurl
import Synchronization

/// Recycles libcurl easy handles between transfers.
///
/// A fresh handle costs several allocations, including its 64 KiB receive buffer; under load that churn (and the
/// page faults behind it) is a visible share of the CPU per fetch. `curl_easy_reset` clears every option, callback
/// and context pointer but keeps the allocations, so a recycled handle behaves like a new one.
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

    /// A reset handle from the pool, or a new one; nil only if libcurl cannot allocate.
    func take() -> UnsafeMutableRawPointer? {
        let recycled = state.withLock { $0.idle.popLast() }
        if let recycled, let handle = UnsafeMutableRawPointer(bitPattern: recycled) { return handle }
        return curl_easy_init()
    }

    /// Returns a handle that is no longer attached to a multi handle. Safe from any thread.
    func recycle(_ handle: UnsafeMutableRawPointer) {
        curl_easy_reset(handle)
        let kept = state.withLock { state -> Bool in
            guard !state.isClosed, state.idle.count < capacity else { return false }
            state.idle.append(UInt(bitPattern: handle))
            return true
        }
        if !kept { curl_easy_cleanup(handle) }
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
