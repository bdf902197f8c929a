/// How one option's text becomes a value, and how a value is written back as text the parser accepts.
///
/// Help, docs/cli.md and the default shown for an option are rendered with `render`, so a default reads in the same units
/// (`25s`, `10MB`) that may be given for it, and parsing the rendered default gives the default back.
struct OptionType<Value: Sendable>: Sendable {
    let kind: OptionDefinition.Kind
    /// The placeholder in usage lines, e.g. `DURATION` in `--deadline DURATION`.
    let valueName: String
    /// The value of option `name` in `options`, nil when it was not given; a malformed value is a usage error.
    let read: @Sendable (_ options: ParsedOptions, _ name: String) throws(UsageError) -> Value?
    let render: @Sendable (Value) -> String

    /// An option that takes one value, turned into `Value` by `parse` (which names the option in its error).
    static func single(
        _ valueName: String,
        render: @escaping @Sendable (Value) -> String,
        parse: @escaping @Sendable (_ raw: String, _ name: String) throws(UsageError) -> Value
    ) -> OptionType {
        OptionType(kind: .value, valueName: valueName, read: { options, name throws(UsageError) in
            guard let raw = options.rawValue(of: name) else { return nil }
            return try parse(raw, name)
        }, render: render)
    }
}

extension OptionType where Value == Bool {
    /// Present or absent; `true`/`false` from the environment or the configuration file.
    static var flag: OptionType {
        OptionType(kind: .flag, valueName: "", read: { options, name in
            options.rawValue(of: name).map { $0 == "true" }
        }, render: { $0 ? "on" : "off" })
    }
}

extension OptionType where Value == String {
    /// Any text, taken as it is.
    static func text(_ valueName: String) -> OptionType {
        .single(valueName, render: { $0 }, parse: { raw, _ in raw })
    }

    /// One of `choices`; anything else is refused with the list.
    static func choice(_ valueName: String, _ choices: [String]) -> OptionType {
        .named(valueName, choices.map { ($0, $0) }, render: { $0 })
    }
}

extension OptionType {
    /// One of the names in `choices`, given as its name; anything else is refused with the list of names.
    static func named(
        _ valueName: String, _ choices: [(name: String, value: Value)], render: @escaping @Sendable (Value) -> String
    ) -> OptionType {
        let names = choices.map(\.name)
        let expected = names.dropLast().joined(separator: ", ") + (names.count > 1 ? " or " : "") + (names.last ?? "")
        return .single(valueName, render: render, parse: { raw, name throws(UsageError) in
            guard let choice = choices.first(where: { $0.name == raw.lowercased() }) else {
                throw .invalidValue(option: name, value: raw, expected: expected)
            }
            return choice.value
        })
    }
}

extension OptionType where Value == [String] {
    /// May be given many times (a comma-separated list in the environment); each source replaces the lists below it.
    static func list(_ valueName: String) -> OptionType {
        OptionType(kind: .repeatedValue, valueName: valueName, read: { options, name in
            options.rawValues(of: name)
        }, render: { $0.joined(separator: ",") })
    }
}

extension OptionType where Value == Int {
    /// A whole number within `range`.
    static func integer(_ valueName: String = "N", in range: ClosedRange<Int>) -> OptionType {
        .single(valueName, render: { String($0) }, parse: { raw, name throws(UsageError) in
            guard let value = Int(raw), range.contains(value) else {
                throw .invalidValue(option: name, value: raw, expected: "an integer in \(range.lowerBound)...\(range.upperBound)")
            }
            return value
        })
    }

    /// `10MB`, `512KB`, `2GB` (powers of 1024), or a plain number of bytes; never zero (a limit of zero would refuse
    /// everything, a gc budget of zero would empty the cache).
    static var byteCount: OptionType {
        .single("SIZE", render: ByteCountText.render, parse: { raw, name throws(UsageError) in
            guard let bytes = ByteCountText.parse(raw), bytes > 0 else {
                throw .invalidValue(option: name, value: raw, expected: "a size above zero such as 500KB, 10MB or 2GB")
            }
            return bytes
        })
    }
}

extension OptionType where Value == Duration {
    /// `250ms`, `25s`, `5m`, `2h`, `7d`, or a plain number of seconds.
    static var duration: OptionType {
        .single("DURATION", render: DurationText.render, parse: { raw, name throws(UsageError) in
            guard let duration = DurationText.parse(raw) else {
                throw .invalidValue(option: name, value: raw, expected: "a duration such as 500ms, 25s, 5m, 2h or 7d")
            }
            return duration
        })
    }
}
