import Foundation
import RichPush

/// The options of one command after merging flags, environment variables and the configuration file.
struct ParsedOptions {
    /// Where an option's value came from, so a usage error can name it.
    enum Source: Equatable {
        case commandLine
        case environment(String)
        case configuration(path: String)

        /// ` (from RICHPUSH_X)` or ` (from the configuration file F)`; empty for the command line.
        var note: String {
            switch self {
            case .commandLine: ""
            case .environment(let variable): " (from \(variable))"
            case .configuration(let path): " (from the configuration file \(path))"
            }
        }
    }

    private(set) var values: [String: [String]] = [:]
    private(set) var sources: [String: Source] = [:]
    private(set) var positionals: [String] = []

    /// Where `name`'s value came from; nil when it was not given.
    func source(of name: String) -> Source? { sources[name] }

    /// Parses `arguments` (without the command name) against `definitions`.
    ///
    /// `--config FILE` (or `RICHPUSH_CONFIG`) names a JSON object whose keys are option names. One file can serve
    /// every command: keys in `otherCommandsOptions` are ignored here, and any other unknown key is an error.
    /// Precedence, highest first: flags, environment, configuration file. Short options (`-c`) are refused, and a
    /// flag set by the environment or the file must be `true` or `false` (or 1 or 0).
    static func parse(
        _ arguments: [String],
        command: String,
        definitions: [OptionDefinition],
        environment: [String: String],
        otherCommandsOptions: Set<String> = []
    ) throws(UsageError) -> ParsedOptions {
        let byName = Dictionary(definitions.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var flags: [String: [String]] = [:]
        var positionals: [String] = []
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if !onlyPositionals, argument.hasPrefix("-"), !argument.hasPrefix("--"), argument != "-" {
                throw .shortOption(argument, command: command)
            }
            if onlyPositionals || !argument.hasPrefix("--") || argument == "-" {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let definition = byName[name] else {
                throw .unknownOption("--\(name)", command: command)
            }
            switch definition.kind {
            case .flag:
                if inlineValue != nil { throw .unexpectedValue(option: name) }
                flags[name] = ["true"]
            case .value, .repeatedValue:
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < arguments.count else { throw .missingValue(option: name) }
                    value = arguments[index]
                    index += 1
                }
                if definition.kind == .value {
                    flags[name] = [value]
                } else {
                    flags[name, default: []].append(value)
                }
            }
        }

        try checkEnvironmentVariables(environment, known: Set(byName.keys).union(otherCommandsOptions))
        var options = ParsedOptions()
        if let path = flags["config"]?.last ?? environment["RICHPUSH_CONFIG"] {
            for (name, value) in try configurationValues(at: path, definitions: byName, ignoring: otherCommandsOptions) {
                try options.set(name, value, from: .configuration(path: path), definitions: byName)
            }
        }
        for definition in definitions {
            if let raw = environment[definition.environmentVariable], definition.name != "config" {
                let value = definition.kind == .repeatedValue
                    ? raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                    : [raw]
                try options.set(definition.name, value, from: .environment(definition.environmentVariable), definitions: byName)
            }
        }
        for (name, value) in flags { try options.set(name, value, from: .commandLine, definitions: byName) }
        options.positionals = positionals
        return options
    }

    /// A `RICHPUSH_` variable that names no option of any command is a typo that would otherwise be ignored.
    private static func checkEnvironmentVariables(_ environment: [String: String], known names: Set<String>) throws(UsageError) {
        let known = names.map(OptionDefinition.environmentVariable(for:))
        for variable in environment.keys.sorted() where variable.hasPrefix("RICHPUSH_") && !known.contains(variable) {
            throw .unknownEnvironmentVariable(variable, suggestion: closest(to: variable, in: known))
        }
    }

    /// The candidate within a few edits of `word` (about a third of its length), nearest first; nil when none is.
    static func closest(to word: String, in candidates: [String]) -> String? {
        let limit = max(2, word.count / 3)
        let scored = candidates.map { ($0, editDistance(word, $0)) }.filter { $0.1 <= limit }
        return scored.min { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }?.0
    }

    /// Levenshtein distance (insertions, deletions and substitutions of bytes), one row at a time.
    static func editDistance(_ first: String, _ second: String) -> Int {
        let firstBytes = Array(first.utf8), secondBytes = Array(second.utf8)
        var previous = Array(0...secondBytes.count)
        for (row, byte) in firstBytes.enumerated() {
            var current = [row + 1]
            for (column, other) in secondBytes.enumerated() {
                current.append(min(previous[column + 1] + 1, current[column] + 1, previous[column] + (byte == other ? 0 : 1)))
            }
            previous = current
        }
        return previous[secondBytes.count]
    }

    /// Records a value and its source; a flag's value from the environment or the file must be a boolean.
    private mutating func set(
        _ name: String, _ value: [String], from source: Source, definitions: [String: OptionDefinition]
    ) throws(UsageError) {
        var value = value
        if definitions[name]?.kind == .flag {
            guard let raw = value.last, let flag = ["true": true, "1": true, "false": false, "0": false][raw.lowercased()] else {
                throw .invalidValue(option: name, value: value.last ?? "", expected: "true or false" + source.note)
            }
            value = [flag ? "true" : "false"]
        }
        values[name] = value
        sources[name] = source
    }

    private static func configurationValues(
        at path: String,
        definitions: [String: OptionDefinition],
        ignoring otherCommandsOptions: Set<String>
    ) throws(UsageError) -> [String: [String]] {
        let root: JSONValue
        do {
            root = try JSONParser.parse(try FileContents.read(path))
        } catch let error as FileContents.ReadError {
            throw .unreadableConfiguration(path: path, reason: error.reason)
        } catch {
            throw .unreadableConfiguration(path: path, reason: "\(error)")
        }
        guard case .object(let object) = root else {
            throw .unreadableConfiguration(path: path, reason: "the top level must be a JSON object")
        }
        var values: [String: [String]] = [:]
        for member in object.members {
            if definitions[member.key] == nil, otherCommandsOptions.contains(member.key) { continue }
            guard definitions[member.key] != nil else {
                throw .unreadableConfiguration(path: path, reason: "unknown key '\(member.key)'")
            }
            let list: [JSONValue]
            if case .array(let elements) = member.value { list = elements } else { list = [member.value] }
            var strings: [String] = []
            for element in list {
                switch element {
                case .string(let text): strings.append(text)
                case .number(let text): strings.append(text)
                case .bool(let flag): strings.append(flag ? "true" : "false")
                default:
                    throw .unreadableConfiguration(path: path, reason: "'\(member.key)' must be a string, number, boolean or a list of them")
                }
            }
            values[member.key] = strings
        }
        return values
    }

    /// The value of `key`, or its default when it was not given; a malformed value is a usage error naming it.
    func value<Value>(of key: OptionKey<Value>) throws(UsageError) -> Value {
        try key.type.read(self, key.name) ?? key.defaultValue
    }

    /// Whether `key` was given (flag, environment or configuration file).
    func isGiven<Value>(_ key: OptionKey<Value>) -> Bool { values[key.name] != nil }

    /// The text `key` was given as (its last value), for error messages; nil when it was not given.
    func rawValue<Value>(of key: OptionKey<Value>) -> String? { rawValue(of: key.name) }

    /// Where `key`'s value came from; nil when it was not given.
    func source<Value>(of key: OptionKey<Value>) -> Source? { sources[key.name] }

    /// The last text given for the option `name`; `OptionType` parses it, commands read through `value(of:)`.
    func rawValue(of name: String) -> String? { values[name]?.last }

    /// Every text given for the list option `name`; nil when it was not given.
    func rawValues(of name: String) -> [String]? { values[name] }
}
