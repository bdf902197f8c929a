import Foundation

/// One `--name` option a command accepts, with where else its value may come from.
///
/// Every option can also be set by the environment variable `RICHPUSH_<NAME>` (upper case, dashes as
/// underscores) and by the key `<name>` in the JSON file given with `--config`. Flags win over the
/// environment, which wins over the configuration file.
struct OptionDefinition: Sendable {
    enum Kind: Sendable {
        /// Present or absent; `--name` alone, or `true`/`false` from the environment or configuration.
        case flag
        /// Takes one value; the last one given wins.
        case value
        /// May be given many times; each source replaces the lists of the sources below it.
        case repeatedValue
    }

    let name: String
    let kind: Kind
    let valueName: String
    /// What the option does, without its default.
    let summary: String
    /// The default as help and docs/cli.md show it (`25s`, `none`); nil when there is nothing to say (flags).
    let defaultText: String?
    /// Whether `defaultText` is a value as it would be given (quoted in help when it has spaces), not a description.
    let defaultIsValue: Bool

    /// Declared through `OptionKey`, which renders `defaultText` from the default value it uses.
    init(
        _ name: String, _ kind: Kind, valueName: String = "VALUE", help: String, defaultText: String? = nil,
        defaultIsValue: Bool = false
    ) {
        self.name = name
        self.kind = kind
        self.valueName = valueName
        self.summary = help
        self.defaultText = defaultText
        self.defaultIsValue = defaultIsValue
    }

    /// The `--help` text: the summary, then the default.
    var help: String {
        guard let defaultText else { return summary }
        return summary + " Default \(defaultIsValue && defaultText.contains(" ") ? "\"\(defaultText)\"" : defaultText)."
    }

    var environmentVariable: String { Self.environmentVariable(for: name) }

    static func environmentVariable(for name: String) -> String {
        "RICHPUSH_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    var usage: String {
        switch kind {
        case .flag: return "--\(name)"
        case .value: return "--\(name) \(valueName)"
        case .repeatedValue: return "--\(name) \(valueName) (repeatable)"
        }
    }
}
