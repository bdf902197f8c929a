import RichPushCore
/// Maps an FCM HTTP v1 send body, `{"message": {...}}`, onto an APNs payload, as FCM itself would for iOS.
///
/// - `message.apns.payload` is the APNs payload; `message.apns.headers` give `apns-topic`, `apns-push-type`,
///   `apns-priority`, `apns-collapse-id` and `apns-expiration`.
/// - `message.notification.title` / `body` fill `aps.alert.title` / `body` when the APNs payload has none;
///   `message.apns.fcm_options` joins the payload's `fcm_options`, and `notification.image` becomes
///   `fcm_options.image` (the key the Firebase extension reads) when that has none. Both are media.
/// - `message.data` members join the payload root (FCM delivers them there).
/// - `message.token` is the device token; it and every other key (`topic`, `condition`, `android`, `webpush`, the
///   root's `validate_only`, unknown headers) go to `target` verbatim. `InputKeyMapping` lists the mapped keys.
struct FirebaseAdapter {
    func adapt(_ root: JSONObject, diagnostics: inout DiagnosticCollector) -> AdaptedNotification? {
        guard case .object(let message)? = root["message"] else {
            diagnostics.reject(.wrongType, "/message", "an FCM body's \"message\" must be an object")
            return nil
        }
        var result = AdaptedNotification(payload: JSONObject())
        for (key, value) in root where InputKeyMapping.firebase[key] == nil { result.target[key] = value }
        for (key, value) in message where InputKeyMapping.firebaseMessage[key] == nil || key == "token" {
            result.target[key] = value
        }
        if let token = message["token"] {
            if let text = token.stringValue { result.deviceToken = text } else {
                diagnostics.add(.warning, .wrongType, "/message/token", "\"token\" is \(token.typeDescription); write the FCM registration token as a string")
            }
        }
        var fcmOptions = JSONObject()
        if let apnsValue = message["apns"] {
            guard case .object(let apns) = apnsValue else {
                diagnostics.reject(.wrongType, "/message/apns", "message.apns must be an object with \"payload\" and \"headers\"")
                return nil
            }
            var rest = JSONObject()
            for (key, value) in apns where InputKeyMapping.firebaseAPNs[key] == nil { rest[key] = value }
            if let payload = apns["payload"] {
                guard case .object(let object) = payload else {
                    diagnostics.reject(.wrongType, "/message/apns/payload", "message.apns.payload must be the APNs payload object ({\"aps\": {...}})")
                    return nil
                }
                result.payload = object
            }
            if let headers = apns["headers"] {
                if case .object(let object) = headers {
                    let unknown = readHeaders(object, into: &result, diagnostics: &diagnostics)
                    if !unknown.isEmpty { rest["headers"] = .object(unknown) }
                } else {
                    diagnostics.add(.warning, .wrongType, "/message/apns/headers", "message.apns.headers must be an object of header strings; it was ignored")
                    rest["headers"] = headers
                }
            }
            if let options = apns["fcm_options"] {
                if case .object(let object) = options { fcmOptions = object } else {
                    diagnostics.add(.warning, .wrongType, "/message/apns/fcm_options", "message.apns.fcm_options must be an object; it was kept in target")
                    rest["fcm_options"] = options
                }
            }
            if !rest.isEmpty { result.target["apns"] = .object(rest) }
        }
        var aps = result.payload["aps"]?.objectValue ?? JSONObject()
        // Where the sender's request gets what the device payload changes: APNs fields in `message.apns.payload`,
        // the image where it was written, alert text FCM filled from `notification` back there.
        var map = SenderRequestMap()
        map.map(["aps"], to: ["message", "apns", "payload", "aps"])
        let payloadHasImage = result.payload["fcm_options"]?.objectValue?["image"] != nil
        if fcmOptions["image"] != nil, !payloadHasImage { map.map(["fcm_options", "image"], to: ["message", "apns", "fcm_options", "image"]) }
        if let notificationValue = message["notification"] {
            if case .object(let notification) = notificationValue {
                var rest = JSONObject()
                for (key, value) in notification where InputKeyMapping.firebaseNotification[key] == nil { rest[key] = value }
                if !rest.isEmpty { result.target["notification"] = .object(rest) }
                for key in fillAlert(&aps, from: notification) { map.map(["aps", "alert", key], to: ["message", "notification", key]) }
                if let image = notification["image"] {
                    if fcmOptions["image"] == nil, !payloadHasImage {
                        // iOS and Android (unless `android.notification.image` overrides it) read this one field.
                        fcmOptions["image"] = image
                        map.map(["fcm_options", "image"], to: ["message", "notification", "image"])
                        result.sharedMediaPointers.insert("/fcm_options/image")
                    } else {
                        // iOS reads its own image; Android and the web read this one.
                        if fcmOptions["image"] == nil { fcmOptions["image"] = image }
                        result.androidImages.append(AndroidImage(
                            pointer: "/message/notification/image", value: image, variantName: VariantName.attachment,
                            platform: .all))
                    }
                }
            } else {
                diagnostics.add(.warning, .wrongType, "/message/notification", "message.notification must be an object; it was kept in target")
                result.target["notification"] = notificationValue
            }
        }
        var payload = JSONObject()
        payload["aps"] = .object(aps)
        for (key, value) in result.payload where key != "aps" { payload[key] = value }
        if !fcmOptions.isEmpty {
            var merged = payload["fcm_options"]?.objectValue ?? JSONObject()
            for (key, value) in fcmOptions where merged[key] == nil { merged[key] = value }
            payload["fcm_options"] = .object(merged)
        }
        if let data = message["data"] {
            if case .object(let object) = data {
                // A member that would overwrite a payload key is kept in target rather than lost.
                var clashing = JSONObject()
                for (key, value) in object {
                    guard payload[key] == nil else { clashing[key] = value; continue }
                    payload[key] = value
                    // FCM takes only strings in `data`: a story written back there stays JSON text.
                    map.map([key], to: ["message", "data", key], encoding: .jsonText)
                }
                if !clashing.isEmpty { result.target["data"] = .object(clashing) }
            } else {
                diagnostics.add(.warning, .wrongType, "/message/data", "message.data must be an object of strings; it was kept in target")
                result.target["data"] = data
            }
        }
        for key in result.payload.keys where key != "aps" {
            map.map([key], to: ["message", "apns", "payload", key])
        }
        result.payload = payload
        result.requestMap = map
        return result
    }

    /// Reads the headers RichPush uses and returns the others.
    private func readHeaders(_ headers: JSONObject, into result: inout AdaptedNotification,
                             diagnostics: inout DiagnosticCollector) -> JSONObject {
        var unknown = JSONObject()
        for (name, value) in headers {
            let pointer = "/message/apns/headers/" + JSONPointer.escape(name)
            let text = value.stringValue ?? value.numberText
            switch name.lowercased() {
            case "apns-topic": result.headers.topic = text
            case "apns-collapse-id": result.headers.collapseID = text
            case "apns-push-type":
                if let text, let type = PushType(rawValue: text.lowercased()) { result.explicitPushType = type } else {
                    diagnostics.reject(.invalidPushType, pointer, "apns-push-type must be \"alert\", \"background\" or \"voip\"")
                }
            case "apns-priority":
                if let number = text.flatMap({ Int($0) }), [1, 5, 10].contains(number) { result.headers.priority = number } else {
                    diagnostics.add(.warning, .invalidPriority, pointer, "apns-priority must be 10, 5 or 1; it was ignored")
                }
            case "apns-expiration":
                if let seconds = text.flatMap({ Int($0) }), seconds >= 0 { result.headers.expiration = seconds } else {
                    diagnostics.add(.warning, .invalidExpiration, pointer, "apns-expiration must be a UNIX time in whole seconds; it was ignored")
                }
            default: unknown[name] = value
            }
        }
        return unknown
    }

    /// FCM shows `notification.title` / `body` unless the APNs payload sets its own alert text. Returns the alert
    /// keys it filled.
    private func fillAlert(_ aps: inout JSONObject, from notification: JSONObject) -> [String] {
        var alert: JSONObject
        switch aps["alert"] {
        case .object(let object)?: alert = object
        case .string(let body)?: alert = ["body": .string(body)]
        case nil: alert = JSONObject()
        default: return []
        }
        var updated = JSONObject()
        for key in ["title", "body"] {
            if alert[key] == nil, let value = notification[key], value.stringValue != nil { updated[key] = value }
        }
        guard !updated.isEmpty else { return [] }
        let filled = updated.keys
        for (key, value) in alert { updated[key] = value }
        var ordered = JSONObject()
        for key in ["title", "subtitle", "body"] { ordered[key] = updated[key] }
        for (key, value) in updated where ordered[key] == nil { ordered[key] = value }
        aps["alert"] = .object(ordered)
        return filled
    }
}
