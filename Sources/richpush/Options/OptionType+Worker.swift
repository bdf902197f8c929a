import RichPush

/// The value types of worker options that are neither text nor numbers nor sizes.
extension OptionType where Value == Double? {
    /// A SSIMULACRA2 score above 0 and at most 100, or `off` (nil).
    static var qualityScore: OptionType {
        .single("SCORE", render: { $0.map { String($0) } ?? "off" }, parse: { raw, name throws(UsageError) in
            if raw == "off" { return nil }
            guard let score = Double(raw), score > 0, score <= 100 else {
                throw .invalidValue(option: name, value: raw, expected: "a SSIMULACRA2 score above 0 and at most 100, or off")
            }
            return score
        })
    }
}

extension OptionType where Value == InputShape {
    static var inputShape: OptionType {
        .named("SHAPE", InputShape.allCases.map { ($0.rawValue, $0) }, render: \.rawValue)
    }
}

extension OptionType where Value == LogLevel {
    static var logLevel: OptionType {
        .named("LEVEL", LogLevel.allCases.map { ($0.name, $0) }, render: \.name)
    }
}

extension OptionType where Value == ResultParts {
    /// Comma-separated part names (`ResultParts.named`), or `all`.
    static var resultParts: OptionType {
        .single("PARTS", render: { $0 == .all ? "all" : $0.names }, parse: { raw, name throws(UsageError) in
            if raw == "all" { return .all }
            var parts: ResultParts = []
            for item in raw.split(separator: ",", omittingEmptySubsequences: false) {
                guard let part = ResultParts.named.first(where: { $0.name == item })?.part else {
                    throw .invalidValue(option: name, value: raw, expected: "all, or a comma-separated list of "
                        + ResultParts.named.map(\.name).joined(separator: ", "))
                }
                parts.insert(part)
            }
            return parts
        })
    }
}
