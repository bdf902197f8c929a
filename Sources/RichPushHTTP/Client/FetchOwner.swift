import Synchronization

/// The job a fetch is for. A job's transfers to one host get at most
/// `FetchConfiguration.maximumConnectionsPerHostPerOwner` connections at once, so its stalled sources cannot hold
/// every connection of the host while another job's images wait behind them. Costs one atomic increment to make.
package struct FetchOwner: Sendable, Hashable {
    private let value: UInt64
    private static let counter = Atomic<UInt64>(0)

    /// A new owner, distinct from every other in the process.
    package init() {
        value = Self.counter.add(1, ordering: .relaxed).newValue
    }
}
