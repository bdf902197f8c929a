import Synchronization

/// How many times a `CacheDisk` looked at a key's object (its sidecar and the file it names) and at its negative
/// entry: `richpush_cache_reads_total`, the directory's read load, which shows that one resolution reads a key once
/// without the lock and once under it. Two atomic increments per look.
package final class CacheLookCounts: Sendable {
    private let objectLooks = Atomic<Int>(0)
    private let failureLooks = Atomic<Int>(0)

    package var objects: Int { objectLooks.load(ordering: .relaxed) }
    package var failures: Int { failureLooks.load(ordering: .relaxed) }

    func countObjectLook() { objectLooks.add(1, ordering: .relaxed) }
    func countFailureLook() { failureLooks.add(1, ordering: .relaxed) }
}
