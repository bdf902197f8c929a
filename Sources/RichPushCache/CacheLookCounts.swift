import Synchronization

/// How many times a `CacheDisk` looked at a key's object (its sidecar and the file it names) and at its negative
/// entry, so tests can check that one resolution reads a key once without the lock and once under it. Two atomic
/// increments per look; nothing else reads them.
final class CacheLookCounts: Sendable {
    private let objectLooks = Atomic<Int>(0)
    private let failureLooks = Atomic<Int>(0)

    var objects: Int { objectLooks.load(ordering: .relaxed) }
    var failures: Int { failureLooks.load(ordering: .relaxed) }

    func countObjectLook() { objectLooks.add(1, ordering: .relaxed) }
    func countFailureLook() { failureLooks.add(1, ordering: .relaxed) }
}
