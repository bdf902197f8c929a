import Foundation
import RichPushCore

/// One notification, normalized into an APNs payload plus header fields, ready for media work and rendering.
package struct NotificationJob: Sendable {
    /// From the envelope `id`, a Pushfa `id`, or a Pushwoosh `id`/`message_id`; nil otherwise. The caller may set it.
    package var id: String?
    package var shape: InputShape
    package var pushType: PushType
    /// True for background pushes: no alert, sound, badge or media.
    package var isSilent: Bool
    /// True when `pw_stories` survived validation with at least one page (and the push is an alert).
    package var isStory: Bool
    /// Where the story is (root, `u` or `userdata`), in which form, and which sender pages it kept; nil without one.
    package var story: StoryPlacement?
    /// Media to fetch; empty for silent and VoIP pushes.
    package var media: [MediaReference]
    /// Findings from parsing (warnings and infos; errors that reject come back as `ParseOutcome.rejected`).
    package var diagnostics: [Diagnostic]
    /// The normalized APNs payload (root object) before any media rewrite.
    package var payload: JSONObject
    package var headers: NotificationHeaders
    /// The device token as text (envelope or Pushfa `token` / `device_token`, FCM `message.token`); the same key
    /// is also in `target`, verbatim.
    package var deviceToken: String?
    /// The input's addressing and scheduling fields, verbatim: the token keys, and every input key that is neither
    /// part of the APNs payload nor in `InputKeyMapping` (unknown envelope keys; Pushwoosh `devices`, `users`,
    /// `filter`, `platforms`, `send_date`, `campaign`, request keys such as `application`; Pushfa `sendTime`,
    /// `subscriber_ids`, `label`/`values`, `only_last_device`, `topic`, aliases). Whoever sends the result needs them.
    /// Credential keys (`CredentialKeys`) are never here, wherever they sat: they stay in the sender's request.
    package var target: JSONObject
    /// The whole input document this job came from (shared by every notification of a Pushwoosh request), and where
    /// in it this job's payload came from: `SenderRequest` hands the sender its own request back from them.
    package var document: JSONValue = .null
    package var requestMap = SenderRequestMap()

    /// The `apns-expiration` this job will be sent with (UNIX seconds): the envelope's, else the send time plus
    /// `timeToLive` (0 stays 0), else nil (APNs then stores the push for up to 30 days). The cache's retain-until
    /// uses it.
    package func apnsExpiration(now: Date) -> Int? {
        if let expiration = headers.expiration { return expiration }
        guard let ttl = headers.timeToLive else { return nil }
        return ttl == 0 ? 0 : sendTime(now: now) + ttl
    }

    /// When the push leaves the provider, UNIX seconds: its scheduled send time, or `now` when it has none or it
    /// has passed.
    package func sendTime(now: Date) -> Int {
        max(Int(now.timeIntervalSince1970), headers.sendTime ?? 0)
    }

    package init(id: String? = nil, shape: InputShape, pushType: PushType, isSilent: Bool,
                isStory: Bool, media: [MediaReference], diagnostics: [Diagnostic], payload: JSONObject,
                headers: NotificationHeaders = NotificationHeaders(), deviceToken: String? = nil,
                target: JSONObject = JSONObject(), story: StoryPlacement? = nil) {
        self.id = id
        self.shape = shape
        self.pushType = pushType
        self.isSilent = isSilent
        self.isStory = isStory
        self.media = media
        self.diagnostics = diagnostics
        self.payload = payload
        self.headers = headers
        self.deviceToken = deviceToken
        self.target = target
        self.story = story
    }
}

/// The result of parsing one input document.
package enum ParseOutcome: Sendable {
    /// One job, or one per notification of a Pushwoosh `request` body.
    case jobs([NotificationJob])
    /// The document is invalid; at least one diagnostic has severity `error`.
    case rejected([Diagnostic])
}
