import RichPushCore

/// Every input shape's facts in one place, as imgproxy keeps one row per format: how a document is recognised as it,
/// the adapter that reads it, the keys that hold a sender's credentials (`CredentialKeys`) and the image fields only
/// Android reads (`AndroidImageFields`). The keys each adapter maps are `InputKeyMapping`'s table for the shape.
///
/// `definitions` is in detection order, the order `PayloadParser.detectShape` asks (see `PayloadParser` for why a
/// document that none recognises is rejected rather than guessed).
struct ShapeDefinition: Sendable {
    let shape: InputShape
    /// Whether a document's root object is this shape, given that no earlier shape recognised it.
    let recognizes: @Sendable (JSONObject) -> Bool
    /// Reads the root object into a device payload and what goes around it; nil when the document is rejected (the
    /// diagnostics say why).
    let adapt: @Sendable (JSONObject, PayloadOptions, inout DiagnosticCollector) -> AdaptedNotification?
    /// What each provider's own API reference calls secret (`CredentialKeys` has the sources).
    let credentialKeys: Set<String>
    /// The image fields of the notification object only Android phones read (`AndroidImageFields` has the sources).
    let androidImageFields: [AndroidImageFields.Field]
}

enum ShapeRegistry {
    /// Keys a Pushwoosh notification has and no other shape's root does.
    static let pushwooshKeys: Set<String> = [
        "content", "ios_title", "ios_subtitle", "ios_root_params", "platforms", "ios_badges", "ios_sound",
        "ios_category_custom", "ios_ttl", "send_date", "ios_attachment", "ios_silent", "ignore_user_timezone",
    ]
    static let pushfaKeys: Set<String> = [
        "title", "body", "image_url", "link_url", "platform", "additional_data", "actions", "silent", "sendTime",
        "ackUrl", "clickAckUrl", "collapse_id", "ttl", "get_delivery_status", "subscriber_ids", "only_last_device",
    ]
    static let envelopeMarkers = ["token", "device_token", "tokens", "id", "topic"]
    /// Keys only a OneSignal create-notification body has.
    static let oneSignalKeys: Set<String> = [
        "app_id", "contents", "headings", "ios_attachments", "include_subscription_ids", "include_player_ids",
        "include_aliases", "included_segments", "include_external_user_ids",
    ]

    /// In detection order.
    static let definitions: [ShapeDefinition] = [
        ShapeDefinition(
            shape: .apns, recognizes: { $0["aps"] != nil },
            // A custom "silent" key inside an APNs payload is the app's own data: APNs has no such key, so it
            // changes nothing (only the envelope's own `silent`, beside `payload`, asks for a background push).
            adapt: { root, _, _ in AdaptedNotification(payload: root, requestMap: SenderRequestMap(payloadTokens: [])) },
            credentialKeys: [], androidImageFields: []),
        ShapeDefinition(
            shape: .firebase, recognizes: { $0["message"]?.objectValue != nil },
            adapt: { root, _, diagnostics in FirebaseAdapter().adapt(root, diagnostics: &diagnostics) },
            credentialKeys: ["access_token", "authorization"],
            androidImageFields: [.init(keyPath: ["message", "android", "notification", "image"], variantName: VariantName.bigPicture)]),
        ShapeDefinition(
            shape: .envelope,
            // A payload object holding `aps` is an envelope even without addressing keys.
            recognizes: { root in
                (root["payload"] != nil && envelopeMarkers.contains { root[$0] != nil }) || root["payload"]?.objectValue?["aps"] != nil
            },
            adapt: { root, _, diagnostics in EnvelopeAdapter().adapt(root, diagnostics: &diagnostics) },
            credentialKeys: ["auth", "authorization"], androidImageFields: []),
        ShapeDefinition(
            shape: .oneSignal, recognizes: { hasAnyKey(of: oneSignalKeys, in: $0) },
            adapt: { root, options, diagnostics in OneSignalAdapter(options: options).adapt(root, diagnostics: &diagnostics) },
            credentialKeys: ["rest_api_key", "api_key", "authorization"],
            androidImageFields: AndroidImageFields.fields(bigPicture: ["big_picture", "huawei_big_picture", "adm_big_picture"],
                                                          largeIcon: ["large_icon", "huawei_large_icon", "adm_large_icon"])),
        ShapeDefinition(
            shape: .pushwoosh, recognizes: { hasAnyKey(of: pushwooshKeys, in: $0) },
            adapt: { root, options, diagnostics in PushwooshAdapter(options: options).adapt(root, at: "", diagnostics: &diagnostics) },
            credentialKeys: ["auth"],
            androidImageFields: AndroidImageFields.fields(bigPicture: ["android_banner", "adm_banner"],
                                                          largeIcon: ["android_custom_icon", "adm_custom_icon"])),
        ShapeDefinition(
            // Pushfa's `image_url` is both platforms' field: `PushfaAdapter` decides by `platform`.
            shape: .pushfa, recognizes: { hasAnyKey(of: pushfaKeys, in: $0) },
            adapt: { root, options, diagnostics in PushfaAdapter(options: options).adapt(root, diagnostics: &diagnostics) },
            credentialKeys: ["api_private_key"], androidImageFields: []),
    ]

    /// Whether `root` has a member named in `keys`, read in place (`JSONObject.keys` would copy every name first).
    private static func hasAnyKey(of keys: Set<String>, in root: JSONObject) -> Bool {
        root.members.contains { keys.contains($0.key) }
    }

    /// The definition of `shape`.
    static func definition(of shape: InputShape) -> ShapeDefinition {
        // Every case has a row (`ShapeRegistryTests`); the first row stands in only if one were ever missing.
        definitions.first { $0.shape == shape } ?? definitions[0]
    }
}
