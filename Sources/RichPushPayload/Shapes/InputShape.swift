/// Which input format a document was read as.
public enum InputShape: String, Sendable, Codable, CaseIterable {
    case apns, envelope, pushwoosh, pushfa
    /// An FCM HTTP v1 send body, `{"message": {...}}`.
    case firebase = "fcm"
    /// A OneSignal create-notification body (`app_id`, `contents`, `ios_attachments`, ...).
    case oneSignal = "onesignal"
}

/// The `apns-push-type` header value.
public enum PushType: String, Sendable, Codable, CaseIterable {
    case alert, background, voip
}
