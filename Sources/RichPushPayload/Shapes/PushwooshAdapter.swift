import Foundation
import RichPushCore

/// Maps one Pushwoosh `notifications[]` entry onto the payload Pushwoosh delivers to the device, as the Pushwoosh
/// SDK reads it (`PWMessage.m`, `PWNotificationServiceProcessor.m`, `StoryPayloadParser.swift`):
///
/// - `pw_msg: "1"` at the root: the SDK's `isPushwooshMessage:` test, without which its service extension does
///   nothing (not even the attachment).
/// - `content` → `aps.alert.body`; `ios_title` → `aps.alert.title`; `ios_subtitle` → `aps.alert.subtitle`.
///   A language map (`{"en": "...", "de": "..."}`) shows "en", else its first entry (info); the request keeps the
///   map. An `ios_title` object holding APNs alert keys (`title-loc-key`, ...) is merged into `aps.alert`.
/// - `ios_badges`: a number (or digit string) → `aps.badge`; a "+N"/"-N" increment → `aps.pw_badge`, which the
///   SDK applies to the device's own count.
/// - `ios_sound` → `aps.sound`, `ios_category_custom` → `aps.category`, `ios_silent` → silent push,
///   `ios_attachment` → root `attachment` (the key the SDK's extension downloads), `link` → root `l`,
///   `ios_ttl` → time to live.
/// - `data` → `u`, a string holding the JSON object, the only place the SDK reads custom data (and one of the
///   places `StoryPayloadParser` finds `pw_stories`). A `data` string is sent as it is.
/// - `ios_root_params` is deep-merged into the root last (objects merge key by key, including `aps`).
/// - Every other key (`send_date`, `platforms`, `devices`, ...) goes to `target` unchanged.
///
/// `requestMap` says where each of these came from, so the sender's own request gets the rewritten media back.
struct PushwooshAdapter {
    static let knownKeys = Set(InputKeyMapping.pushwoosh.keys)

    let options: PayloadOptions

    func adapt(_ notification: JSONObject, at base: String, diagnostics: inout DiagnosticCollector) -> AdaptedNotification {
        var aps = JSONObject()
        var alert = JSONObject()
        var root = JSONObject()
        var target = JSONObject()
        var headers = NotificationHeaders()
        var silent = false

        for (key, value) in notification where !PushwooshAdapter.knownKeys.contains(key) {
            target[key] = value
        }
        if let content = notification["content"] {
            if let text = text(content, at: base + "/content", diagnostics: &diagnostics) { alert["body"] = .string(text) }
        }
        if let title = notification["ios_title"] {
            if case .object(let object) = title, object.keys.contains(where: { $0.contains("loc-") }) {
                alert.deepMerge(object)
            } else if let text = text(title, at: base + "/ios_title", diagnostics: &diagnostics) {
                alert["title"] = .string(text)
            }
        }
        if let subtitle = notification["ios_subtitle"],
           let text = text(subtitle, at: base + "/ios_subtitle", diagnostics: &diagnostics) {
            alert["subtitle"] = .string(text)
        }
        if !alert.isEmpty {
            // Apple's documented order, which also reads best in logs.
            var ordered = JSONObject()
            for key in ["title", "subtitle", "body"] { ordered[key] = alert[key] }
            for (key, value) in alert where ordered[key] == nil { ordered[key] = value }
            aps["alert"] = .object(ordered)
        }
        if let badges = notification["ios_badges"] {
            switch badges {
            case .number:
                aps["badge"] = badges
            case .string(let text) where (text.hasPrefix("+") || text.hasPrefix("-")) && Int(text.dropFirst()) != nil:
                // The SDK adds it to the device's own count (PWNotificationServiceProcessor.m).
                aps["pw_badge"] = badges
            case .string(let text) where Int(text) != nil:
                aps["badge"] = .number(String(Int(text) ?? 0))
            default:
                diagnostics.add(.warning, .wrongType, base + "/ios_badges",
                                "ios_badges must be a number or a \"+1\"/\"-1\" string; it was ignored")
            }
        }
        if let sound = notification["ios_sound"] {
            if sound.stringValue != nil { aps["sound"] = sound } else {
                diagnostics.add(.warning, .wrongType, base + "/ios_sound", "ios_sound must be a sound file name; it was ignored")
            }
        }
        if let category = notification["ios_category_custom"] {
            if category.stringValue != nil { aps["category"] = category } else {
                diagnostics.add(.warning, .wrongType, base + "/ios_category_custom", "ios_category_custom must be a string; it was ignored")
            }
        }
        if notification["ios_silent"]?.isTruthy == true {
            silent = true
            aps["content-available"] = .number("1")
        }
        if let ttl = notification["ios_ttl"] {
            if let seconds = ttl.integerValue, seconds >= 0 { headers.timeToLive = seconds } else {
                diagnostics.add(.warning, .invalidExpiration, base + "/ios_ttl", "ios_ttl must be whole seconds; it was ignored")
            }
        }
        root["aps"] = .object(aps)
        root["pw_msg"] = .string("1")
        var map = SenderRequestMap()
        let baseTokens = JSONPointer.tokens(base) ?? []
        if let data = notification["data"] {
            switch data {
            case .object:
                root["u"] = .string(String(decoding: data.serialized(), as: UTF8.self))
                map.map(["u"], to: baseTokens + ["data"])
            case .string:
                root["u"] = data
                map.map(["u"], to: baseTokens + ["data"])
            default:
                diagnostics.add(.warning, .wrongType, base + "/data", "data must be an object of custom keys; it was ignored")
            }
        }
        if let attachment = notification["ios_attachment"] { root["attachment"] = attachment }
        if let link = notification["link"] {
            if link.stringValue != nil { root["l"] = link } else {
                diagnostics.add(.warning, .wrongType, base + "/link", "link must be a URL string; it was ignored")
            }
        }
        if let rootParameters = notification["ios_root_params"] {
            if case .object(let object) = rootParameters { root.deepMerge(object) } else {
                diagnostics.add(.warning, .wrongType, base + "/ios_root_params", "ios_root_params must be an object; it was ignored")
            }
        }
        // The sender's own fields for what the device payload may change; a language map is not one (it stays).
        map.map(["attachment"], to: baseTokens + ["ios_attachment"])
        map.map(["l"], to: baseTokens + ["link"])
        for (device, key) in [("body", "content"), ("title", "ios_title"), ("subtitle", "ios_subtitle")] {
            if notification[key]?.stringValue != nil {
                map.map(["aps", "alert", device], to: baseTokens + [key])
            } else {
                map.keepSenders(["aps", "alert", device])
            }
        }
        map.map(["aps", "category"], to: baseTokens + ["ios_category_custom"])
        map.map(["aps", "mutable-content"], to: baseTokens + ["ios_root_params", "aps", "mutable-content"])
        for key in notification["ios_root_params"]?.objectValue?.keys ?? [] {
            map.map([key], to: baseTokens + ["ios_root_params", key])
        }
        var result = AdaptedNotification(payload: root, requestMap: map)
        result.inputPointer = base
        result.headers = headers
        result.target = target
        result.explicitSilent = silent
        if let id = notification["id"]?.identifierText ?? notification["message_id"]?.identifierText { result.id = id }
        return result
    }

    private func text(_ value: JSONValue, at pointer: String, diagnostics: inout DiagnosticCollector) -> String? {
        switch value {
        case .string(let text):
            return text
        case .object(let languages):
            guard let language = options.chosenLanguage(in: languages) else { return nil }
            diagnostics.add(.info, .localizedTextFlattened, pointer,
                            "the device payload shows the \"\(language)\" text of this language map (--language); the request keeps the map, and Pushwoosh sends each device its own language")
            return languages[language]?.stringValue
        default:
            diagnostics.add(.warning, .wrongType, pointer, "expected a string or a language map, found \(value.typeDescription); it was ignored")
            return nil
        }
    }
}
