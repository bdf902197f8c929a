/// Gathers findings while parsing or rendering and remembers whether any of them rejects the job.
struct DiagnosticCollector {
    var items: [Diagnostic] = []
    private(set) var rejects = false

    mutating func add(_ severity: Diagnostic.Severity, _ code: DiagnosticCode, _ pointer: String, _ message: String) {
        items.append(Diagnostic(severity, code, pointer, message))
    }

    /// An error that makes the document invalid.
    mutating func reject(_ code: DiagnosticCode, _ pointer: String, _ message: String) {
        items.append(Diagnostic(.error, code, pointer, message))
        rejects = true
    }

    /// A length or count limit: a warning, or a rejecting error in strict mode.
    mutating func limit(_ code: DiagnosticCode, _ pointer: String, _ message: String, strict: Bool) {
        if strict { reject(code, pointer, message) } else { add(.warning, code, pointer, message) }
    }

    mutating func append(contentsOf other: DiagnosticCollector) {
        items.append(contentsOf: other.items)
        if other.rejects { rejects = true }
    }
}

/// What an input adapter produces: an APNs payload tree plus everything around it.
struct AdaptedNotification {
    var payload: JSONObject
    var headers = NotificationHeaders()
    var id: String?
    var deviceToken: String?
    var passthrough = JSONObject()
    var explicitSilent = false
    var explicitPushType: PushType?
    var variantName: String?
}

extension JSONValue {
    /// Text for an identifier given as a string or a number.
    var identifierText: String? {
        switch self {
        case .string(let text): return text
        case .number(let text): return text
        default: return nil
        }
    }

    /// True for `true`, a non-zero number, or "1"/"true".
    var isTruthy: Bool {
        switch self {
        case .bool(let flag): return flag
        case .number(let text): return (Double(text) ?? 0) != 0
        case .string(let text): return text == "1" || text.lowercased() == "true"
        default: return false
        }
    }
}

extension JSONObject {
    /// Merges `overlay` into this object: objects merge key by key, anything else replaces.
    mutating func deepMerge(_ overlay: JSONObject) {
        for (key, value) in overlay {
            if case .object(let incoming) = value, case .object(var existing)? = self[key] {
                existing.deepMerge(incoming)
                self[key] = .object(existing)
            } else {
                self[key] = value
            }
        }
    }
}
