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
    let help: String

    init(_ name: String, _ kind: Kind, valueName: String = "VALUE", help: String) {
        self.name = name
        self.kind = kind
        self.valueName = valueName
        self.help = help
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
