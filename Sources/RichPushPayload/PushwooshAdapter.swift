import Foundation
import RichPushCore

/// Maps one Pushwoosh `notifications[]` entry onto an APNs payload.
///
/// - `content` → `aps.alert.body`; `ios_title` → `aps.alert.title`; `ios_subtitle` → `aps.alert.subtitle`.
///   A language map (`{"en": "...", "de": "..."}`) is flattened to "en", else its first entry (info).
///   An `ios_title` object holding APNs alert keys (`title-loc-key`, ...) is merged into `aps.alert`.
/// - `ios_badges`: a number (or digit string) → `aps.badge`. "+N"/"-N" increments need the device's current
///   count, which only Pushwoosh knows, so they are left out of `aps` and kept in `target` (info).
/// - `ios_sound` → `aps.sound`, `ios_category_custom` → `aps.category`, `ios_silent` → silent push,
///   `ios_attachment` → root `attachment` (the key the Pushwoosh SDK reads), `link` → root `l`,
///   `ios_ttl` → time to live.
/// - `data` → its members become root custom keys (so `pw_stories` sits at the root where the content
///   extension reads it). Real Pushwoosh wraps custom data in `u` as a JSON string; a `data` string holding a
///   JSON object is unpacked the same way (info), any other string is kept at `u` as is.
/// - `ios_root_params` is deep-merged into the root last (objects merge key by key, including `aps`).
/// - Every other key (`send_date`, `platforms`, `devices`, ...) goes to `target` unchanged.
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
            case .string(let text) where text.hasPrefix("+") || text.hasPrefix("-"):
                target["ios_badges"] = badges
                diagnostics.add(.info, .badgeIncrementUnresolved, base + "/ios_badges",
                                "badge increment \"\(text)\" needs the device's current count, which only Pushwoosh tracks; aps.badge was not set and the value is kept in the result's target")
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
        if let data = notification["data"] {
            switch data {
            case .object(let object):
                for (key, value) in object { root[key] = value }
            case .string(let text):
                if case .object(let object)? = try? JSONParser.parse(Data(text.utf8), maximumDepth: options.maximumDepth) {
                    for (key, value) in object { root[key] = value }
                    diagnostics.add(.info, .dataJSONString, base + "/data",
                                    "data was a JSON string; its members were unpacked into the payload root")
                } else {
                    root["u"] = data
                }
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
        var result = AdaptedNotification(payload: root)
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
            let chosen = languages["en"]?.stringValue ?? languages.members.lazy.compactMap { $0.value.stringValue }.first
            if chosen != nil {
                diagnostics.add(.info, .localizedTextFlattened, pointer,
                                "a language map was flattened to \(languages["en"] != nil ? "\"en\"" : "its first language"); send one push per language to localize")
            }
            return chosen
        default:
            diagnostics.add(.warning, .wrongType, pointer, "expected a string or a language map, found \(value.typeDescription); it was ignored")
            return nil
        }
    }
}
