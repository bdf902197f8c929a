import Foundation
import RichPushCore

/// A process-wide cap on the pixel memory that renders hold at once (decoded images, resize buffers, outputs).
///
/// A render reserves its estimate (`RenderPlan.estimatedPeakBytes`) before it decodes and gives it back when
/// it returns. When the budget is spent, the earliest waiting render that fits goes first: a small render is not
/// held behind a large one that cannot start yet. A large one that has waited `patience` is overtaken no more, so
/// it starves for at most that long. A waiter whose deadline passes fails with `deadlineExceeded`, and a cancelled
/// one with `cancelled`; either leaves the queue at once and lets the next ones through.
///
/// A render whose estimate is larger than three quarters of the budget is not refused (every retry would fail the
/// same way): it reserves three quarters instead. The quarter left keeps small renders going beside it, and two
/// such renders never run at once. (Every such render is expensive, and takes the expensive lane too.)
///
/// Cost: `AsyncSemaphore`'s: one lock per reserve and release; a waiter also owns one sleeping task for its deadline.
public final class RenderMemoryBudget: Sendable {
    /// The budget shared by every pipeline that is not given one of its own: `defaultCapacity()` bytes.
    public static let processWide = RenderMemoryBudget(capacity: defaultCapacity())

    /// The most bytes reserved at once.
    public var capacity: Int { bytes.capacity }

    /// The bytes, as the units of a semaphore: waiting in arrival order, with deadlines and cancellation.
    private let bytes: AsyncSemaphore

    /// How long a render that does not fit may be overtaken by ones that do.
    package static let patience: Duration = .milliseconds(500)

    public init(capacity: Int) {
        bytes = AsyncSemaphore(capacity: capacity, order: .firstFit(patience: Self.patience))
    }

    /// The most one render reserves: three quarters of the capacity.
    package var largestReservation: Int { max(1, capacity / 4 * 3) }

    /// Bytes reserved right now (for tests and metrics).
    package var reservedBytes: Int { bytes.heldUnits }

    /// Renders waiting for budget right now.
    package var waitingCount: Int { bytes.waitingCount }

    /// Reserves `amount` bytes (at most `largestReservation`), waiting until they are free, and returns the amount
    /// actually reserved: hand it to `release` when the render is done.
    ///
    /// Throws `deadlineExceeded` when `deadline` passes first and `cancelled` when the calling task is cancelled;
    /// nothing stays reserved then.
    package func reserve(_ amount: Int, deadline: ContinuousClock.Instant) async throws(ImageError) -> Int {
        do {
            return try await bytes.acquire(min(amount, largestReservation), deadline: deadline)
        } catch {
            switch error {
            case .deadlineExceeded: throw .deadlineExceeded
            case .cancelled: throw .cancelled
            }
        }
    }

    /// Gives back what `reserve` returned, and lets the waiters that now fit through.
    package func release(_ amount: Int) {
        bytes.release(amount)
    }

    /// Reserves, runs `body`, and releases whatever `body` does.
    package func withReservation<Value>(
        of bytes: Int, deadline: ContinuousClock.Instant, _ body: () async throws(ImageError) -> Value
    ) async throws(ImageError) -> Value {
        let reserved = try await reserve(bytes, deadline: deadline)
        defer { release(reserved) }
        return try await body()
    }

    /// The default capacity: a quarter of the memory this process may use, between 64 MB and 2 GB.
    ///
    /// The memory is the cgroup v2 limit (`/sys/fs/cgroup/memory.max`) when one is set, as in a container, or
    /// `MemTotal` from `/proc/meminfo` when that is smaller (512 MB of budget when neither can be read). A quarter leaves the rest for what the budget does not count: fetched and
    /// encoded bytes, the cache, libraries and the runtime, and other processes on the host. The floor lets one
    /// large render (a 40 MP image decoded at full size is 160 MB, and runs alone) still go through at a time on a
    /// tiny machine; the ceiling keeps a large host from letting dozens of full-size decodes pile up at once.
    package static func defaultCapacity(
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
