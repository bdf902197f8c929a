import RichPushCore
/// Maps a Pushfa-style send request onto an APNs payload.
///
/// `title`/`body` → `aps.alert`; `image_url` (or `image`) → root `image` and `link_url` (or `url`) → root `url`, the
/// names the Pushfa SDK's device table reads; `actions`, `ackUrl`, `clickAckUrl`, `messageId` stay as root custom
/// keys; `additional_data` stays one object under `additional_data`; `api_private_key` (backend only) is kept in the
/// sender's request alone, never in the payload or `target`; `collapse_id`, `ttl` and `silent` become headers; `get_delivery_status: true` sets
/// `mutable-content`; `platform` is "ios", "android" (then `image_url` is rendered as an Android big picture, not
/// an iOS attachment) or absent (both: the attachment, which Android shows too); `id` becomes the job id. `token`/`device_token` becomes
/// the device token and is kept in `target`. Everything else (`sendTime`, `subscriber_ids`, `label`, `values`,
/// `only_last_device`, `topic`, aliases, ...) goes to `target`. `InputKeyMapping.pushfa` lists every mapped key.
struct PushfaAdapter {
    static let knownKeys = Set(InputKeyMapping.pushfa.keys)

    let options: PayloadOptions

    func adapt(_ request: JSONObject, diagnostics: inout DiagnosticCollector) -> AdaptedNotification {
        var alert = JSONObject()
        var root = JSONObject()
        var result = AdaptedNotification(payload: JSONObject())
        for (key, value) in request where !PushfaAdapter.knownKeys.contains(key) || EnvelopeAdapter.tokenKeys.contains(key) {
            result.target[key] = value
        }
        // Which phones the request goes to: an absent platform sends to both, so `image_url` must suit both.
        var platforms: Set<MediaPlatform> = [.ios, .android]
        if let platform = request["platform"] {
            switch platform.stringValue?.lowercased() {
            case "ios"?: platforms = [.ios]
            case "android"?: platforms = [.android]
            default:
                diagnostics.reject(.platformUnknown, "/platform",
                                   "platform is \(platform.stringValue.map { "\"\($0)\"" } ?? platform.typeDescription); write \"ios\" or \"android\", or leave it out to send to both")
            }
        }
        for (key, limit) in [("title", options.maximumPushfaTitleLength), ("body", options.maximumPushfaBodyLength)] {
            guard let value = request[key] else { continue }
            guard let text = value.stringValue else {
                diagnostics.add(.warning, .wrongType, "/" + key, "\(key) must be a string, found \(value.typeDescription); it was ignored")
                continue
            }
            if text.count > limit {
                diagnostics.limit(.textTooLong, "/" + key,
                                  "\(key) is \(text.count) characters; keep it to \(limit) or it is cut off on the lock screen",
                                  strict: options.strict)
            }
            alert[key] = value
        }
        var aps = JSONObject()
        if !alert.isEmpty { aps["alert"] = .object(alert) }
        if request["silent"]?.isTruthy == true {
            result.explicitSilent = true
            aps["content-available"] = .number("1")
        }
        // The Pushfa SDK reports delivery from its service extension, which only runs with mutable-content.
        if request["get_delivery_status"]?.isTruthy == true { aps["mutable-content"] = .number("1") }
        root["aps"] = .object(aps)
        // The device table of the Pushfa SDK reads `image` and `url`; the send API names them `image_url` and
        // `link_url` (either name is accepted, the API's first).
        for (device, keys) in [("image", ["image_url", "image"]), ("url", ["link_url", "url"])] {
            for key in keys {
                guard let value = request[key] else { continue }
                guard value.stringValue != nil else {
                    diagnostics.add(.warning, .wrongType, "/" + key, "\(key) must be a URL string; it was ignored")
                    continue
                }
                if root[device] == nil {
                    root[device] = value
                    result.requestMap.map([device], to: [key])
                    if device == "image", platforms.contains(.android) {
                        if platforms.contains(.ios) {
                            result.sharedMediaPointers.insert("/image")
                        } else {
                            // Only Android reads it: rendered for Android, and not an iOS attachment.
                            result.androidImages.append(AndroidImage(pointer: "/" + key, value: value, variantName: VariantName.bigPicture))
                        }
                    }
                } else {
                    diagnostics.add(.warning, .duplicateKey, "/" + key, "\(key) names the same field as \(keys[0]); \(keys[0]) was used")
                }
            }
        }
        if platforms == [.android] { root.remove("image") }
        if let actions = request["actions"] {
            root["actions"] = .array(validActions(actions, diagnostics: &diagnostics))
            result.requestMap.map(["actions"], to: ["actions"])
        }
        for key in ["ackUrl", "clickAckUrl", "messageId"] {
            if let value = request[key] { root[key] = value }
        }
        if let additional = request["additional_data"] {
            // The SDK reads custom data as one object under `additional_data`.
            if case .object = additional {
                root["additional_data"] = additional
                result.requestMap.map(["additional_data"], to: ["additional_data"])
            } else {
                diagnostics.add(.warning, .wrongType, "/additional_data", "additional_data must be an object of custom keys; it was ignored")
            }
        }
        for (device, key) in [("title", "title"), ("body", "body")] { result.requestMap.map(["aps", "alert", device], to: [key]) }
        if let collapse = request["collapse_id"] {
            if let text = collapse.identifierText { result.headers.collapseID = text } else {
                diagnostics.add(.warning, .wrongType, "/collapse_id", "collapse_id must be a string; it was ignored")
            }
        }
        if let ttl = request["ttl"] {
            if let seconds = ttl.integerValue, seconds >= 0 { result.headers.timeToLive = seconds } else {
                diagnostics.add(.warning, .invalidExpiration, "/ttl", "ttl must be whole seconds; it was ignored")
            }
        }
        result.id = request["id"]?.identifierText
        result.deviceToken = request["token"]?.stringValue ?? request["device_token"]?.stringValue
        result.payload = root
        return result
    }

    private func validActions(_ value: JSONValue, diagnostics: inout DiagnosticCollector) -> [JSONValue] {
        guard case .array(let actions) = value else {
            diagnostics.add(.warning, .wrongType, "/actions", "actions must be an array of {\"title\", \"url\"} buttons; it was ignored")
            return []
        }
        var kept: [JSONValue] = []
        for (index, action) in actions.enumerated() {
            let pointer = "/actions/\(index)"
            guard case .object(let object) = action, let url = object["url"]?.stringValue else {
                diagnostics.add(.warning, .actionInvalid, pointer, "each action needs a \"url\" string; this one was dropped")
                continue
            }
            if let problem = options.linkProblem(url) {
                diagnostics.add(.warning, .actionInvalid, pointer + "/url", problem + "; this action was dropped")
                continue
            }
            if kept.count == options.maximumActions {
                diagnostics.limit(.tooManyActions, pointer,
                                  "iOS shows at most \(options.maximumActions) action buttons here; this action was dropped",
                                  strict: options.strict)
                continue
            }
            kept.append(action)
        }
        return kept
    }
}
