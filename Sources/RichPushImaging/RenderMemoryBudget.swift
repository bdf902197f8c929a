import Foundation
import Synchronization
import RichPushCore

/// A process-wide cap on the pixel memory that renders hold at once (decoded images, resize buffers, outputs).
///
/// A render reserves its estimate (`ImagePipeline.estimatedPeakBytes`) before it decodes and gives it back when
/// it returns. When the budget is spent, renders wait in arrival order: a later small render never overtakes an
/// earlier large one, so a large one cannot starve. A waiter whose deadline passes fails with `deadlineExceeded`,
/// and a cancelled one with `cancelled`; either leaves the queue at once and lets the next ones through.
///
/// A render whose estimate is larger than the whole budget is not refused (every retry would fail the same way):
/// it reserves the whole budget instead, so it runs alone once the renders before it have finished.
///
/// Cost: one lock per reserve and release; a waiter also owns one sleeping task for its deadline.
public final class RenderMemoryBudget: Sendable {
    /// The budget shared by every pipeline that is not given one of its own: `defaultCapacity()` bytes.
    public static let processWide = RenderMemoryBudget(capacity: defaultCapacity())

    /// The most bytes reserved at once.
    public let capacity: Int

    private struct Waiter {
        var id: UInt64
        var bytes: Int
        var continuation: CheckedContinuation<Result<Void, ImageError>, Never>
    }

    private struct State {
        var reserved = 0
        var nextID: UInt64 = 0
        var waiters: [Waiter] = []
    }

    private let state = Mutex(State())

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Bytes reserved right now (for tests and metrics).
    public var reservedBytes: Int { state.withLock { $0.reserved } }

    /// Renders waiting for budget right now.
    public var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// Reserves `bytes` (at most `capacity`), waiting in arrival order until they are free, and returns the amount
    /// actually reserved: hand it to `release` when the render is done.
    ///
    /// Throws `deadlineExceeded` when `deadline` passes first and `cancelled` when the calling task is cancelled;
    /// nothing stays reserved then.
    public func reserve(_ bytes: Int, deadline: ContinuousClock.Instant) async throws(ImageError) -> Int {
        let amount = min(max(0, bytes), capacity)
        if Task.isCancelled { throw .cancelled }
        let granted = state.withLock { state in
            guard state.waiters.isEmpty, state.reserved + amount <= capacity else { return false }
            state.reserved += amount
            return true
        }
        if granted { return amount }
        if ContinuousClock.now >= deadline { throw .deadlineExceeded }

        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let timer = Task { [weak self] in
            try? await Task.sleep(until: deadline, clock: .continuous)
            if !Task.isCancelled { self?.withdraw(id, because: .deadlineExceeded) }
        }
        defer { timer.cancel() }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, ImageError>, Never>) in
                let resumeNow: Result<Void, ImageError>? = state.withLock { state in
                    // Cancelled between the check above and here: the handler found no waiter to remove.
                    if Task.isCancelled { return .failure(.cancelled) }
                    state.waiters.append(Waiter(id: id, bytes: amount, continuation: continuation))
                    return nil
                }
                if let resumeNow { continuation.resume(returning: resumeNow) }
                grantWaiters()
            }
        } onCancel: {
            withdraw(id, because: .cancelled)
        }
        try result.get()
        return amount
    }

    /// Gives back what `reserve` returned, and lets the waiters at the head of the queue through.
    public func release(_ bytes: Int) {
        state.withLock { $0.reserved = max(0, $0.reserved - bytes) }
        grantWaiters()
    }

    /// Reserves, runs `body`, and releases whatever `body` does.
    public func withReservation<Value>(
        of bytes: Int, deadline: ContinuousClock.Instant, _ body: () async throws(ImageError) -> Value
    ) async throws(ImageError) -> Value {
        let reserved = try await reserve(bytes, deadline: deadline)
        defer { release(reserved) }
        return try await body()
    }

    /// Removes a waiter that gave up and wakes it with `error`; a waiter already granted is left alone.
    private func withdraw(_ id: UInt64, because error: ImageError) {
        let waiter: Waiter? = state.withLock { state in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        guard let waiter else { return }
        waiter.continuation.resume(returning: .failure(error))
        // The head may have been the one blocking the queue.
        grantWaiters()
    }

    /// Grants waiters from the head of the queue while they fit; stops at the first that does not (no overtaking).
    private func grantWaiters() {
        let ready: [Waiter] = state.withLock { state in
            var ready: [Waiter] = []
            while let first = state.waiters.first, state.reserved + first.bytes <= capacity {
                state.reserved += first.bytes
                ready.append(state.waiters.removeFirst())
            }
            return ready
        }
        for waiter in ready { waiter.continuation.resume(returning: .success(())) }
    }

    /// The default capacity: a quarter of the memory this process may use, between 64 MB and 2 GB.
    ///
    /// The memory is the cgroup v2 limit (`/sys/fs/cgroup/memory.max`) when one is set, as in a container, or
    /// `MemTotal` from `/proc/meminfo` when that is smaller (512 MB of budget when neither can be read). A quarter leaves the rest for what the budget does not count: fetched and
    /// encoded bytes, the cache, libraries and the runtime, and other processes on the host. The floor lets one
    /// large render (a 40 MP image decoded at full size is 160 MB, and runs alone) still go through at a time on a
    /// tiny machine; the ceiling keeps a large host from letting dozens of full-size decodes pile up at once.
    public static func defaultCapacity(
        cgroupLimit: String? = try? String(contentsOfFile: "/sys/fs/cgroup/memory.max", encoding: .utf8),
        meminfo: String? = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)
    ) -> Int {
        let floor = 64 << 20, ceiling = 2 << 30
        guard let memory = machineMemory(cgroupLimit: cgroupLimit, meminfo: meminfo) else { return 512 << 20 }
        return min(ceiling, max(floor, memory / 4))
    }

    /// The smaller of the cgroup limit (when it is a number, not `max`) and MemTotal (kB) in bytes; nil when
    /// neither is known.
    static func machineMemory(cgroupLimit: String?, meminfo: String?) -> Int? {
        var known: [Int] = []
        if let limit = cgroupLimit.flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }), limit > 0 {
            known.append(limit)
        }
        if let line = meminfo?.split(separator: "\n").first(where: { $0.hasPrefix("MemTotal:") }) {
            let fields = line.split(separator: " ")
            if fields.count >= 2, let kilobytes = Int(fields[1]), kilobytes > 0 { known.append(kilobytes * 1024) }
        }
        return known.min()
    }
}
