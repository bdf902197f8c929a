import Foundation
import Synchronization

/// Fresh objects and live failures a store has just read or published, answered from memory for `duration`, so a
/// warm key costs a dictionary lookup instead of storage I/O (a request to object storage, stats on disk).
///
/// The price is staleness across processes: an object that another process deletes (GC, `verify --repair`) may still
/// be handed out by this one for up to `duration`. Objects are immutable under their key, so nothing else goes stale.
/// Bounded: a full table starts over rather than tracking recency on the hot path.
final class OutcomeMemory: Sendable {
    /// A class, so that reading an entry under the lock is one retain: the outcome's object holds a dozen strings,
    /// and copying it out of the table for each warm look was over 1% of a warm job's CPU.
    private final class Entry: Sendable {
        let outcome: CacheOutcome
        let until: ContinuousClock.Instant

        init(outcome: CacheOutcome, until: ContinuousClock.Instant) {
            self.outcome = outcome
            self.until = until
        }
    }

    let duration: Duration
    private let clock: any CacheClock
    private let capacity: Int
    private let table = Mutex<[CacheKey: Entry]>([:])

    /// A zero `duration` remembers nothing.
    init(duration: Duration, clock: any CacheClock, capacity: Int = 100_000) {
        self.duration = duration
        self.clock = clock
        self.capacity = capacity
    }

    /// `.hit` with a fresh object whose retention already reaches `retainUntil`, or `.failed(cached: true)` with a
    /// live failure; nil when storage must be asked. No I/O.
    func answer(for key: CacheKey, retainUntil: Date?, rules: CacheFreshnessRules) -> CacheOutcome? {
        let now = clock.instant
        let remembered = table.withLock { table -> CacheOutcome? in
            guard let entry = table[key] else { return nil }
            switch entry.outcome {
            case .failed(let failure, _) where now < entry.until && rules.isLive(failure):
                return .failed(failure, cached: true)
            case .hit(let object), .produced(let object), .revalidated(let object):
                if now < entry.until && rules.isFresh(object) { return .hit(object) }
            default:
                break
            }
            table[key] = nil
            return nil
        }
        if let object = remembered?.object, rules.needsRetention(object, until: retainUntil) { return nil }
        return remembered
    }

    /// Remembers a fresh object or a failure (a failure no longer than it lives).
    func remember(_ outcome: CacheOutcome) {
        guard duration > .zero else { return }
        let key: CacheKey
        switch outcome {
        case .hit(let object), .produced(let object), .revalidated(let object):
            guard object.isFresh(at: clock.date) else { return }
            key = object.key
        case .failed(let failure, _):
            key = failure.key
        }
        let until = clock.instant + duration
        table.withLock { table in
            if table.count >= capacity { table.removeAll(keepingCapacity: true) }
            table[key] = Entry(outcome: outcome, until: until)
        }
    }

    func forget(_ key: CacheKey) {
        _ = table.withLock { $0.removeValue(forKey: key) }
    }

    func forgetAll() {
        table.withLock { $0.removeAll() }
    }
}
