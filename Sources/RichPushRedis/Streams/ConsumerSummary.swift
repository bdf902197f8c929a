/// What one ``RedisStreamConsumer/run()`` did, returned when it stops.
package struct ConsumerSummary: Sendable, Hashable {
    /// Entries handed to the handler (including claimed ones).
    package var jobsHandled: Int = 0
    /// Results written and acknowledged (handler results plus `missing_job_field` rejections).
    package var resultsWritten: Int = 0
    /// Entries without a `job` field, answered with a `missing_job_field` rejection.
    package var missingJobField: Int = 0
    /// Entries taken over from other (or earlier) consumers after `claimIdle`.
    package var claimed: Int = 0
    /// Finished entries whose result was not written again after a write's answer was lost: that write had
    /// acknowledged them, or another consumer had claimed them.
    package var alreadyAnswered: Int = 0
    /// Entries moved to the dead-letter stream.
    package var deadLettered: Int = 0
    /// Times a connection was re-established after it broke.
    package var reconnects: Int = 0
    /// Network round trips to Redis: one per pipelined batch of commands (connect handshakes included).
    package var roundTrips: Int = 0
    /// Replies read (several per round trip when pipelining).
    package var replies: Int = 0

    package init() {}

    /// Round trips per handled job; the budget is at most 2.
    package var roundTripsPerJob: Double {
        jobsHandled == 0 ? 0 : Double(roundTrips) / Double(jobsHandled)
    }
}
