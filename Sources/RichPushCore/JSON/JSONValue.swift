/// Order-preserving JSON with numbers kept as their source text, so unknown keys round-trip byte-for-byte.
///
/// Strings compare with Swift `String` semantics (canonical equivalence); their bytes are kept as written. Member
/// names are looked up by their bytes (`ExactString`), as the devices' parsers do.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// The number exactly as written in the source (RFC 8259 grammar), never converted to a binary float.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The string payload, or nil for any other case.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The object payload, or nil for any other case.
    public var objectValue: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// The array payload, or nil for any other case.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The boolean payload, or nil for any other case.
    public var boolValue: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    /// The number's source text, or nil for any other case.
    public var numberText: String? {
        if case .number(let text) = self { return text }
        return nil
    }

    /// The number as an `Int` when its source text is an integer that fits, or nil.
    public var integerValue: Int? {
        guard case .number(let text) = self else { return nil }
        if let exact = Int(text) { return exact }
        if let double = Double(text), double.rounded() == double, abs(double) < 9.0e15 { return Int(double) }
        return nil
    }

    /// A short name of the JSON type, used in diagnostics ("a string", "an object", ...).
    public var typeDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
