import Foundation

/// Collects one response body: into a pooled buffer when its length was announced (no reallocation, no fresh
/// pages), otherwise into a growing `Data`. Overflowing an announced length (content decoding, a lying origin)
/// spills into `Data` and carries on; the byte cap is enforced by the caller.
struct BodyAccumulator {
    private let pool: BodyBufferPool
    private var buffer: (pointer: UnsafeMutableRawPointer, capacity: Int)?
    private var count = 0
    private var spilled = Data()

    init(pool: BodyBufferPool) {
        self.pool = pool
    }

    private var isEmpty: Bool { buffer == nil && count == 0 && spilled.isEmpty }

    /// Prepares for a body of `length` bytes. Ignored once bytes have arrived (trailers end a second header block).
    mutating func expect(length: Int) {
        guard isEmpty else { return }
        if let pooled = pool.take(minimumCapacity: length) {
            buffer = pooled
        } else {
            spilled.reserveCapacity(length)
        }
    }

    mutating func append(_ bytes: UnsafeRawPointer, count added: Int) {
        if let pooled = buffer {
            if count + added <= pooled.capacity {
                (pooled.pointer + count).copyMemory(from: bytes, byteCount: added)
                count += added
                return
            }
            spilled = Data(bytes: pooled.pointer, count: count)
            pool.give(pooled.pointer, capacity: pooled.capacity)
            buffer = nil
            count = 0
        }
        spilled.append(bytes.assumingMemoryBound(to: UInt8.self), count: added)
    }

    /// Hands the collected bytes over (without copying a pooled buffer) and starts empty again.
    mutating func take() -> Data {
        if let pooled = buffer {
            buffer = nil
            defer { count = 0 }
            return pool.data(pooled.pointer, count: count, capacity: pooled.capacity)
        }
        defer { spilled = Data() }
        return spilled
    }

    /// Drops whatever was collected, returning a pooled buffer.
    mutating func reset() {
        if let pooled = buffer { pool.give(pooled.pointer, capacity: pooled.capacity) }
        buffer = nil
        count = 0
        spilled = Data()
    }
}
