import RichPushCore

/// Maps a OneSignal create-notification body (`POST /notifications`) onto the payload OneSignal delivers to an iOS
/// device, as the OneSignal iOS SDK reads it (`OSNotification`, `OneSignalCommonDefines.h`):
///
/// - `headings` / `subtitle` / `contents` (language maps) → `aps.alert.title` / `subtitle` / `body`, in
///   `PayloadOptions.language`, else "en", else the first language (the request keeps the maps);
/// - `ios_attachments` (id → URL) → root `att`, the object the SDK's service extension downloads;
/// - `data` → `custom.a` and `url` → `custom.u` (the SDK's custom-data block; its link is checked like any link);
/// - `ios_category` → `aps.category`, `ios_sound` → `aps.sound`, `ios_badgeType: "SetTo"` with `ios_badgeCount` →
///   `aps.badge`, `thread_id` → `aps.thread-id`, `mutable_content` → `aps.mutable-content`, `content_available` →
///   `aps.content-available`;
/// - `collapse_id` and `ttl` become headers, `send_after` the send time (`SendTime`), `priority` 5 or 10
///   `apns-priority`;
/// - `app_id` is kept in the sender's request alone; every other key (`include_subscription_ids`,
///   `included_segments`, `name`, Android's `big_picture`, ...) goes to `target` unchanged.
struct OneSignalAdapter {
    static let knownKeys = Set(InputKeyMapping.oneSignal.keys)

    let options: PayloadOptions

    func adapt(_ body: JSONObject, diagnostics: inout DiagnosticCollector) -> AdaptedNotification {
        var result = AdaptedNotification(payload: JSONObject())
        var map = SenderRequestMap()
        for (key, value) in body where !OneSignalAdapter.knownKeys.contains(key) { result.target[key] = value }
        var aps = JSONObject()
        var alert = JSONObject()
        for (device, key) in [("title", "headings"), ("subtitle", "subtitle"), ("body", "contents")] {
            guard let value = body[key] else { continue }
            guard case .object(let languages) = value,
                  let language = options.chosenLanguage(in: languages), let text = languages[language]?.stringValue else {
                diagnostics.add(.warning, .wrongType, "/" + key, "\(key) must be a language map such as {\"en\": \"...\"}; it was ignored")
                continue
            }
            alert[device] = .string(text)
            map.map(["aps", "alert", device], to: [key, language])
        }
        if !alert.isEmpty { aps["alert"] = .object(alert) }
        for (device, key) in [("category", "ios_category"), ("sound", "ios_sound"), ("thread-id", "thread_id")] {
            guard let value = body[key] else { continue }
            if value.stringValue != nil { aps[device] = value } else {
                diagnostics.add(.warning, .wrongType, "/" + key, "\(key) must be a string; it was ignored")
            }
        }
        map.map(["aps", "category"], to: ["ios_category"])
        if body["ios_badgeType"]?.stringValue == "SetTo", let count = body["ios_badgeCount"], count.integerValue != nil {
            aps["badge"] = count
        }
        if body["mutable_content"]?.isTruthy == true { aps["mutable-content"] = .number("1") }
        map.map(["aps", "mutable-content"], to: ["mutable_content"], encoding: .boolean)
        if body["content_available"]?.isTruthy == true { aps["content-available"] = .number("1") }
        var root = JSONObject()
        root["aps"] = .object(aps)
        if let attachments = body["ios_attachments"] {
            if case .object = attachments {
                root["att"] = attachments
                map.map(["att"], to: ["ios_attachments"])
            } else {
                diagnostics.add(.warning, .wrongType, "/ios_attachments", "ios_attachments must be an object of id → URL; it was ignored")
            }
        }
        var custom = JSONObject()
        if let data = body["data"] {
            custom["a"] = data
            map.map(["custom", "a"], to: ["data"])
        }
        if let url = body["url"] {
            if let link = url.stringValue, options.linkProblem(link) == nil {
                custom["u"] = url
                map.map(["custom", "u"], to: ["url"])
            } else {
                diagnostics.add(.error, .linkSchemeNotAllowed, "/url", (url.stringValue.flatMap(options.linkProblem) ?? "url must be a URL string") + "; the link was removed")
            }
        }
        if !custom.isEmpty { root["custom"] = .object(custom) }
        if let collapse = body["collapse_id"]?.identifierText { result.headers.collapseID = collapse }
        if let ttl = body["ttl"] {
            if let seconds = ttl.integerValue, seconds >= 0 { result.headers.timeToLive = seconds } else {
                diagnostics.add(.warning, .invalidExpiration, "/ttl", "ttl must be whole seconds; it was ignored")
            }
        }
        if let priority = body["priority"]?.integerValue, [5, 10].contains(priority) { result.headers.priority = priority }
        // `send_after` is read by `SendTime` from target, like the other shapes' scheduling keys.
        if let sendAfter = body["send_after"] { result.target["send_after"] = sendAfter }
        result.payload = root
        result.requestMap = map
        return result
    }
}
