/// One option declared once: its name, value type, default and help. Commands read it with
/// `options.value(of: WorkerOption.deadline)`, so a misspelled option does not compile and the value read is the one
/// the help text names as the default.
///
/// The environment variable (`RICHPUSH_<NAME>`) and the `--config` key follow from the name (`OptionDefinition`).
struct OptionKey<Value: Sendable & Equatable>: AnyOptionKey {
    /// What parsing, `--help` and docs/cli.md's option tables see.
    let definition: OptionDefinition
    let type: OptionType<Value>
    /// The value when the option is not given.
    let defaultValue: Value
    /// Whether `definition.defaultText` is `defaultValue` rendered (rather than a description such as "detect").
    let rendersDefault: Bool

    var name: String { definition.name }

    /// An option with a default of its type. The help text ends with the default rendered as the parser reads it,
    /// unless `defaultText` describes it instead (a list's "none"); flags, off by default, say nothing.
    init(
        _ name: String, _ type: OptionType<Value>, default defaultValue: Value, valueName: String? = nil,
        defaultText: String? = nil, help: String
    ) {
        self.type = type
        self.defaultValue = defaultValue
        rendersDefault = defaultText == nil && type.kind == .value
        definition = OptionDefinition(
            name, type.kind, valueName: valueName ?? type.valueName, help: help,
            defaultText: rendersDefault ? type.render(defaultValue) : defaultText, defaultIsValue: rendersDefault)
    }

    /// An option that may be absent (nil), with `defaultText` saying what happens then, e.g. "detect" or
    /// "16 x --concurrency"; nil says nothing.
    init<Wrapped>(
        _ name: String, _ type: OptionType<Wrapped>, valueName: String? = nil, defaultText: String? = nil, help: String
    ) where Value == Wrapped? {
        self.type = OptionType(
            kind: type.kind, valueName: type.valueName,
            read: { options, name throws(UsageError) in try type.read(options, name).map { .some($0) } },
            render: { $0.map(type.render) ?? "" })
        defaultValue = nil
        rendersDefault = false
        definition = OptionDefinition(
            name, type.kind, valueName: valueName ?? type.valueName, help: help, defaultText: defaultText)
    }

    /// Whether the default the help text names parses back, with this option's own parser, to `defaultValue`
    /// (true when the text is a description rather than a value).
    func defaultTextParsesBack() throws(UsageError) -> Bool {
        guard rendersDefault, let text = definition.defaultText else { return true }
        let options = try ParsedOptions.parse(["--\(name)", text], command: "check", definitions: [definition], environment: [:])
        return try options.value(of: self) == defaultValue
    }
}

/// An option of any value type, as the list of options a command accepts holds it.
protocol AnyOptionKey: Sendable {
    var definition: OptionDefinition { get }
    /// Whether the default the help text names parses back to the value used when the option is not given.
    func defaultTextParsesBack() throws(UsageError) -> Bool
}
