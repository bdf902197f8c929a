extension JSONValue {
    /// Text for an identifier given as a string or a number.
    package var identifierText: String? {
        switch self {
        case .string(let text): return text
        case .number(let text): return text
        default: return nil
        }
    }

    /// True for `true`, a non-zero number, or "1"/"true".
    package var isTruthy: Bool {
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
    package mutating func deepMerge(_ overlay: JSONObject) {
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
