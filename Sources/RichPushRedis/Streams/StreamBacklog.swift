/// How far the consumer group is behind on its stream, as Redis reports it.
package struct StreamBacklog: Sendable, Hashable {
    /// Entries delivered to some consumer of the group and not acknowledged yet (`XPENDING <stream> <group>`).
    package var pending: Int
    /// Entries in the stream not yet delivered to the group (the `lag` field of `XINFO GROUPS`). Nil when Redis
    /// does not provide it: before 7.0, or when it cannot tell (e.g. after entries were deleted from the middle).
    package var lag: Int?

    package init(pending: Int, lag: Int?) {
        self.pending = pending
        self.lag = lag
    }
}
