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
