/// Mutual exclusion for one cache key across hosts, so that only one of them renders it at a time.
///
/// A lease expires by itself after its time to live, so a holder that dies frees the key without help; a holder
/// releases only its own lease (by token), never one that expired and was taken by another host meanwhile.
public protocol CacheLease: Sendable {
    /// Takes the lease on `name` for `timeToLive` without waiting: a token when taken, nil when another holder has it.
    func acquire(_ name: String, timeToLive: Duration) async throws(CacheError) -> String?
    /// Gives the lease back if `token` still holds it. Never throws: an unreleased lease expires on its own.
    func release(_ name: String, token: String) async
    /// Where the leases live, for the log (no credentials).
    var description: String { get }
    /// Throws when the lease service does not answer (for readiness checks).
    func checkAvailability() async throws(CacheError)
}
