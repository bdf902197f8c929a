/// APNs header fields that come from the input rather than from rendering.
package struct NotificationHeaders: Sendable, Hashable {
    /// `apns-topic` from the input (envelope `topic`); the renderer falls back to `PayloadOptions.topic`.
    package var topic: String?
    /// `apns-collapse-id`, at most ``maximumCollapseIDBytes`` (checked while parsing).
    package var collapseID: String?
    /// APNs refuses a longer `apns-collapse-id` (Apple's "Sending notification requests to APNs", header fields).
    package static let maximumCollapseIDBytes = 64
    /// An explicit `apns-priority` from the envelope (1, 5 or 10); background pushes always get 5.
    package var priority: Int?
    /// Absolute `apns-expiration`, UNIX seconds, from the envelope.
    package var expiration: Int?
    /// Relative time to live in seconds (Pushfa `ttl`, Pushwoosh `ios_ttl`, envelope `ttl`); the renderer turns
    /// it into `apns-expiration` using its `now`.
    package var timeToLive: Int?
    /// When the provider will send the push, UNIX seconds (`SendTime`: Pushwoosh `send_date`, Pushfa `sendTime`,
    /// envelope `send_at`); nil for now. The time to live and the cache's retention count from it.
    package var sendTime: Int?

    package init(topic: String? = nil, collapseID: String? = nil, priority: Int? = nil, expiration: Int? = nil,
                timeToLive: Int? = nil, sendTime: Int? = nil) {
        self.topic = topic
        self.collapseID = collapseID
        self.priority = priority
        self.expiration = expiration
        self.timeToLive = timeToLive
        self.sendTime = sendTime
    }
}
