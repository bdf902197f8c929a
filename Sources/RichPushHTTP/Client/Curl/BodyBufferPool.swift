import Foundation
import Synchronization

/// Reuses body buffers between fetches.
///
/// A fresh multi-hundred-kilobyte allocation per image means fresh pages, and the kernel's page faults and page
/// clearing showed up as the largest avoidable cost per fetch in the benchmark. Buffers here come in power-of-two
/// size classes (64 KiB … 2 MiB, so a retained body wastes at most half its buffer), are handed out as the
/// storage of the returned `Data` (no copy), and come back when that `Data` is released. At most
/// `maximumPooledBytes` stay idle.
final class BodyBufferPool: Sendable {
    static let smallestClass = 64 * 1024
    static let largestClass = 2 * 1024 * 1024
    private let maximumPooledBytes: Int

    private struct State {
        var idle: [Int: [UInt]] = [:]   // capacity -> buffer addresses
        var pooledBytes = 0
    }

    private let state = Mutex(State())

    init(maximumPooledBytes: Int = 32 * 1024 * 1024) {
        self.maximumPooledBytes = maximumPooledBytes
    }

    /// A buffer of at least `minimumCapacity` bytes, or nil when the size is outside the pooled classes.
    func take(minimumCapacity: Int) -> (pointer: UnsafeMutableRawPointer, capacity: Int)? {
        guard minimumCapacity > 0, minimumCapacity <= Self.largestClass else { return nil }
        var capacity = Self.smallestClass
        while capacity < minimumCapacity { capacity *= 2 }
        let recycled = state.withLock { state -> UInt? in
            guard let address = state.idle[capacity]?.popLast() else { return nil }
            state.pooledBytes -= capacity
            return address
        }
        if let recycled, let pointer = UnsafeMutableRawPointer(bitPattern: recycled) { return (pointer, capacity) }
        return (UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16), capacity)
    }

    /// Takes a buffer back (from any thread); frees it when the pool is full.
    func give(_ pointer: UnsafeMutableRawPointer, capacity: Int) {
        let kept = state.withLock { state -> Bool in
            guard state.pooledBytes + capacity <= maximumPooledBytes else { return false }
            state.idle[capacity, default: []].append(UInt(bitPattern: pointer))
            state.pooledBytes += capacity
            return true
        }
        if !kept { pointer.deallocate() }
    }

    /// Wraps `count` bytes of a pooled buffer as `Data` without copying; the buffer returns when the Data dies.
    func data(_ pointer: UnsafeMutableRawPointer, count: Int, capacity: Int) -> Data {
        Data(bytesNoCopy: pointer, count: count, deallocator: .custom { [self] pointer, _ in
            give(pointer, capacity: capacity)
        })
    }

    deinit {
        state.withLock { state in
            for (_, addresses) in state.idle {
                for address in addresses { UnsafeMutableRawPointer(bitPattern: address)?.deallocate() }
            }
            state.idle = [:]
        }
    }
}
