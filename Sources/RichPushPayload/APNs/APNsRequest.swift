import RichPushCore
/// One HTTP/2 header of the APNs request.
public struct APNsHeader: Sendable, Hashable {
    public var name: String
    public var value: String
    package init(name: String, value: String) {
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
    /// The most bytes APNs takes for this push type (`PayloadOptions.maximumPayloadBytes(for:)`).
    public var byteLimit: Int
    public var deviceToken: String?
    /// `NotificationJob.target`, unchanged.
    public var target: JSONObject

    package init(headers: [APNsHeader], payload: JSONValue, byteCount: Int, byteLimit: Int, deviceToken: String? = nil,
                target: JSONObject = JSONObject()) {
        self.headers = headers
        self.payload = payload
        self.byteCount = byteCount
        self.byteLimit = byteLimit
        self.deviceToken = deviceToken
        self.target = target
    }

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
