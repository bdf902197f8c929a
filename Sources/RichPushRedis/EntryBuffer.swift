import Synchronization

/// Entries read (or claimed) but not started yet, between the reader and the launcher.
///
/// Prefetching means a freed job slot starts the next entry at once instead of waiting for a round trip, and the
/// low-water mark makes the reader fetch several entries per `XREADGROUP`. At most `capacity` entries wait here, so
/// an entry's idle time before it starts stays bounded by about one job's duration.
final class EntryBuffer: Sendable {
    private struct State {
        var entries: [StreamEntry] = []
        var finished = false
        var reader: CheckedContinuation<Int, Never>?
        var launcher: CheckedContinuation<StreamEntry?, Never>?
    }

    let capacity: Int
    private let lowWater: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = capacity
        lowWater = capacity / 2
    }

    /// Waits until no more than the low-water mark is buffered; returns how many entries may be added.
    func waitForRoom() async -> Int {
        await withCheckedContinuation { continuation in
            let room: Int? = state.withLock { state in
                if state.entries.count <= lowWater { return capacity - state.entries.count }
                state.reader = continuation
                return nil
            }
            if let room { continuation.resume(returning: room) }
        }
    }

    func push(_ entries: [StreamEntry]) {
        var remaining = entries[...]
        guard let first = remaining.popFirst() else { return }
        let launcher = state.withLock { state in
            if let launcher = state.launcher {
                state.launcher = nil
                state.entries += remaining
                return Optional(launcher)
            }
            state.entries.append(first)
            state.entries += remaining
            return nil
        }
        launcher?.resume(returning: first)
    }

    /// The reader stopped; `next()` returns nil once the buffer is empty.
    func finish() {
        let launcher = state.withLock { state in
            state.finished = true
            defer { state.launcher = nil }
            return state.launcher  // only ever waiting while the buffer is empty
        }
        launcher?.resume(returning: nil)
    }

    /// The next entry in read order, waiting for the reader; nil when finished and drained.
    ///
    /// An entry already buffered is returned without suspending: a continuation always suspends the launcher and
    /// queues it again behind the job tasks, even when it is resumed at once.
    func next() async -> StreamEntry? {
        if let ready = take(parking: nil) { return ready }
        return await withCheckedContinuation { continuation in
            if let ready = take(parking: continuation) { continuation.resume(returning: ready) }
        }
    }

    /// The next entry (or nil when finished and drained), waking the reader at the low-water mark; `.none` when the
    /// buffer is empty, after parking `launcher` (if given) to be resumed by `push` or `finish`.
    private func take(parking launcher: CheckedContinuation<StreamEntry?, Never>?) -> StreamEntry?? {
        let (ready, wakeReader): (StreamEntry??, (CheckedContinuation<Int, Never>, Int)?) = state.withLock { state in
            if !state.entries.isEmpty {
                let entry = state.entries.removeFirst()
                var wake: (CheckedContinuation<Int, Never>, Int)?
                if let reader = state.reader, state.entries.count <= lowWater {
                    state.reader = nil
                    wake = (reader, capacity - state.entries.count)
                }
                return (.some(entry), wake)
            }
            if state.finished { return (.some(nil), nil) }
            if let launcher { state.launcher = launcher }
            return (.none, nil)
        }
        if let (reader, room) = wakeReader { reader.resume(returning: room) }
        return ready
    }
}
