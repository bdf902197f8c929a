import Foundation

/// Which input format a document was read as.
public enum InputShape: String, Sendable, Codable, CaseIterable {
    case apns, envelope, pushwoosh, pushfa
}

/// The `apns-push-type` header value.
public enum PushType: String, Sendable, Codable, CaseIterable {
    case alert, background, voip
}

/// One media URL found in a notification.
public struct MediaReference: Sendable, Hashable {
    public enum Role: Sendable, Hashable {
        case attachment
        case storyPage(index: Int)
    }

    /// RFC 6901 pointer into the *output APNs payload* (before rendering drops anything) where the URL lives.
    /// It is also the key of `APNsRenderer.render`'s media map.
    public var pointer: String
    public var url: String
    public var role: Role
    /// "attachment", "story", or the variant the job named in its envelope (`variant`).
    public var variantName: String

    public init(pointer: String, url: String, role: Role, variantName: String) {
        self.pointer = pointer
        self.url = url
        self.role = role
        self.variantName = variantName
    }
}

/// APNs header fields that come from the input rather than from rendering.
public struct NotificationHeaders: Sendable, Hashable {
    /// `apns-topic`, passed through from the envelope.
    public var topic: String?
    /// `apns-collapse-id`, at most 64 bytes (checked while parsing).
    public var collapseID: String?
    /// An explicit `apns-priority` from the envelope (1, 5 or 10); background pushes always get 5.
    public var priority: Int?
    /// Absolute `apns-expiration`, UNIX seconds, from the envelope.
    public var expiration: Int?
    /// Relative time to live in seconds (Pushfa `ttl`, Pushwoosh `ios_ttl`, envelope `ttl`); the renderer turns
    /// it into `apns-expiration` using its `now`.
    public var timeToLive: Int?

    public init(topic: String? = nil, collapseID: String? = nil, priority: Int? = nil, expiration: Int? = nil,
                timeToLive: Int? = nil) {
        self.topic = topic
        self.collapseID = collapseID
        self.priority = priority
        self.expiration = expiration
        self.timeToLive = timeToLive
    }
}

/// One notification, normalized into an APNs payload plus header fields, ready for media work and rendering.
public struct NotificationJob: Sendable {
    /// From the envelope `id` (or Pushfa/Pushwoosh `id`/`messageId` when given); the caller may set or replace it.
    public var id: String?
    /// Set by the caller (the NDJSON line number).
    public var lineNumber: Int?
    public var shape: InputShape
    public var pushType: PushType
    /// True for background pushes: no alert, sound, badge or media.
    public var isSilent: Bool
    /// True when `pw_stories` survived validation with at least one page.
    public var isStory: Bool
    /// Media to fetch; empty for silent and VoIP pushes.
    public var media: [MediaReference]
    /// Findings from parsing (warnings and infos; errors that reject come back as `ParseOutcome.rejected`).
    public var diagnostics: [Diagnostic]
    /// The normalized APNs payload (root object) before any media rewrite.
    public var payload: JSONObject
    public var headers: NotificationHeaders
    /// Envelope `token` / `device_token`.
    public var deviceToken: String?
    /// Input keys that have no meaning for APNs (unknown envelope keys, Pushwoosh/Pushfa scheduling and targeting
    /// fields such as `send_date`, `sendTime`, `devices`, aliases). Carried to `APNsRequest.passthrough` unchanged.
    public var passthrough: JSONObject

    /// The `apns-expiration` this job will be sent with (UNIX seconds): the envelope's, else `now + timeToLive`
    /// (0 stays 0), else nil (APNs then stores the push for up to 30 days). The cache's retain-until uses it.
    public func apnsExpiration(now: Date) -> Int? {
        if let expiration = headers.expiration { return expiration }
        guard let ttl = headers.timeToLive else { return nil }
        return ttl == 0 ? 0 : Int(now.timeIntervalSince1970) + ttl
    }

    public init(id: String? = nil, lineNumber: Int? = nil, shape: InputShape, pushType: PushType, isSilent: Bool,
                isStory: Bool, media: [MediaReference], diagnostics: [Diagnostic], payload: JSONObject,
                headers: NotificationHeaders = NotificationHeaders(), deviceToken: String? = nil,
                passthrough: JSONObject = JSONObject()) {
        self.id = id
        self.lineNumber = lineNumber
        self.shape = shape
        self.pushType = pushType
        self.isSilent = isSilent
        self.isStory = isStory
        self.media = media
        self.diagnostics = diagnostics
        self.payload = payload
        self.headers = headers
        self.deviceToken = deviceToken
        self.passthrough = passthrough
    }
}

/// The result of parsing one input document.
public enum ParseOutcome: Sendable {
    /// One job, or one per notification of a Pushwoosh `request` body.
    case jobs([NotificationJob])
    /// The document is invalid; at least one diagnostic has severity `error`.
    case rejected([Diagnostic])
}

/// The result of one media reference, supplied by the pipeline.
public enum MediaOutcome: Sendable, Hashable {
    case rendered(publicURL: String, width: Int, height: Int, bytes: Int, format: String)
    case failed(code: String, message: String)
    /// Deadline hit before it finished, budget, ...
    case skipped(reason: String)
}

/// One HTTP/2 header of the APNs request.
public struct APNsHeader: Sendable, Hashable {
    public var name: String
    public var value: String
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// What to send to APNs.
public struct APNsRequest: Sendable {
    /// In this order: apns-push-type, apns-priority, apns-topic, apns-collapse-id, apns-expiration (absent ones omitted).
    public var headers: [APNsHeader]
    public var payload: JSONValue
    /// Compact UTF-8 size of `payload`, the number APNs checks.
    public var byteCount: Int
    public var deviceToken: String?
    /// `NotificationJob.passthrough`, unchanged.
    public var passthrough: JSONObject

    /// The value of a header by name (case-insensitive), or nil.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// The result of rendering one job.
public enum RenderOutcome: Sendable {
    case rendered(APNsRequest, diagnostics: [Diagnostic])
    case rejected([Diagnostic])
}
