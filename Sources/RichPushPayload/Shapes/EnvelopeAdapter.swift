import RichPushCore
/// Reads a queue job envelope: `{"id", "token"|"device_token", "topic", "push_type", "priority", "collapse_id",
/// "expiration", "ttl", "variant", "payload": {APNs payload}}`. The token keys and unknown envelope keys (`tokens`,
/// tenant ids, ...) go to `target` verbatim.
struct EnvelopeAdapter {
    static let knownKeys = Set(InputKeyMapping.envelope.keys)
    /// Consumed as the device token and also copied to `target` verbatim, since the sender needs them to send.
    static let tokenKeys: Set<String> = ["token", "device_token"]

    func adapt(_ root: JSONObject, diagnostics: inout DiagnosticCollector) -> AdaptedNotification? {
        guard case .object(let payload)? = root["payload"] else {
            diagnostics.reject(.wrongType, "/payload",
                               "the envelope's \"payload\" must be an object holding the APNs payload ({\"aps\": {...}})")
            return nil
        }
        var result = AdaptedNotification(payload: payload, requestMap: SenderRequestMap(payloadTokens: ["payload"]))
        for (key, value) in root
        where !EnvelopeAdapter.knownKeys.contains(key) || EnvelopeAdapter.tokenKeys.contains(key) {
            result.target[key] = value
        }
        if let id = root["id"] {
            if let text = id.identifierText { result.id = text } else {
                diagnostics.add(.warning, .wrongType, "/id", "\"id\" is \(id.typeDescription); write a string")
            }
        }
        for key in ["token", "device_token"] {
            guard let value = root[key] else { continue }
            if let text = value.stringValue { result.deviceToken = text } else {
                diagnostics.add(.warning, .wrongType, "/" + key, "\"\(key)\" is \(value.typeDescription); write the hex device token as a string")
            }
        }
        if let topic = root["topic"] {
            if let text = topic.stringValue { result.headers.topic = text } else {
                diagnostics.add(.warning, .wrongType, "/topic", "\"topic\" is \(topic.typeDescription); write the bundle id as a string")
            }
        }
        if let pushType = root["push_type"] {
            if let text = pushType.stringValue, let type = PushType(rawValue: text.lowercased()) {
                result.explicitPushType = type
            } else {
                diagnostics.reject(.invalidPushType, "/push_type",
                                   "push_type must be \"alert\", \"background\" or \"voip\"")
            }
        }
        if let priority = root["priority"] {
            if let number = priority.integerValue ?? priority.stringValue.flatMap({ Int($0) }), [1, 5, 10].contains(number) {
                result.headers.priority = number
            } else {
                diagnostics.add(.warning, .invalidPriority, "/priority", "priority must be 10, 5 or 1; it was ignored")
            }
        }
        if let collapse = root["collapse_id"] {
            if let text = collapse.identifierText { result.headers.collapseID = text } else {
                diagnostics.add(.warning, .wrongType, "/collapse_id", "\"collapse_id\" is \(collapse.typeDescription); write a string")
            }
        }
        if let expiration = root["expiration"] {
            if let seconds = expiration.integerValue, seconds >= 0 { result.headers.expiration = seconds } else {
                diagnostics.add(.warning, .invalidExpiration, "/expiration",
                                "expiration must be a UNIX time in whole seconds (0 = deliver once); it was ignored")
            }
        }
        if let ttl = root["ttl"] {
            if let seconds = ttl.integerValue, seconds >= 0 { result.headers.timeToLive = seconds } else {
                diagnostics.add(.warning, .invalidExpiration, "/ttl", "ttl must be whole seconds; it was ignored")
            }
        }
        if let variant = root["variant"]?.stringValue { result.variantName = variant }
        if root["silent"]?.isTruthy == true { result.explicitSilent = true }
        return result
    }
}
