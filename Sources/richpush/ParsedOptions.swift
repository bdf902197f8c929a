import Foundation
import RichPush

/// The options of one command after merging flags, environment variables and the configuration file.
struct ParsedOptions {
    private(set) var values: [String: [String]] = [:]
    private(set) var positionals: [String] = []

    /// Parses `arguments` (without the command name) against `definitions`.
    ///
    /// `--config FILE` (or `RICHPUSH_CONFIG`) names a JSON object whose keys are option names.
    /// Precedence, highest first: flags, environment, configuration file.
    static func parse(
        _ arguments: [String],
        command: String,
        definitions: [OptionDefinition],
        environment: [String: String]
    ) throws(UsageError) -> ParsedOptions {
        let byName = Dictionary(definitions.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var flags: [String: [String]] = [:]
        var positionals: [String] = []
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
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

        var merged: [String: [String]] = [:]
        if let path = flags["config"]?.last ?? environment["RICHPUSH_CONFIG"] {
            merged = try configurationValues(at: path, definitions: byName)
        }
        for definition in definitions {
            if let raw = environment[definition.environmentVariable], definition.name != "config" {
                merged[definition.name] = definition.kind == .repeatedValue
                    ? raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                    : [raw]
            }
        }
        for (name, value) in flags { merged[name] = value }
        var options = ParsedOptions()
        options.values = merged
        options.positionals = positionals
        return options
    }

    private static func configurationValues(
        at path: String,
        definitions: [String: OptionDefinition]
    ) throws(UsageError) -> [String: [String]] {
        let root: JSONValue
        do {
            root = try JSONParser.parse(try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw .unreadableConfiguration(path: path, reason: "\(error)")
        }
        guard case .object(let object) = root else {
            throw .unreadableConfiguration(path: path, reason: "the top level must be a JSON object")
        }
        var values: [String: [String]] = [:]
        for member in object.members {
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

    func string(_ name: String) -> String? { values[name]?.last }

    func strings(_ name: String) -> [String] { values[name] ?? [] }

    func flag(_ name: String) -> Bool { values[name]?.last == "true" }

    func integer(_ name: String, range: ClosedRange<Int> = 0...Int.max) throws(UsageError) -> Int? {
        guard let raw = string(name) else { return nil }
        guard let value = Int(raw), range.contains(value) else {
            throw .invalidValue(option: name, value: raw, expected: "an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// Accepts `250ms`, `25s`, `5m`, `2h`, `7d`, or a plain number of seconds.
    func duration(_ name: String) throws(UsageError) -> Duration? {
        guard let raw = string(name) else { return nil }
        guard let duration = Self.parseDuration(raw) else {
            throw .invalidValue(option: name, value: raw, expected: "a duration such as 500ms, 25s, 5m, 2h or 7d")
        }
        return duration
    }

    /// Accepts `10MB`, `512KB`, `2GB` (powers of 1024), or a plain number of bytes.
    func byteCount(_ name: String) throws(UsageError) -> Int? {
        guard let raw = string(name) else { return nil }
        guard let bytes = Self.parseByteCount(raw) else {
            throw .invalidValue(option: name, value: raw, expected: "a size such as 500KB, 10MB or 2GB")
        }
        return bytes
    }

    static func parseDuration(_ text: String) -> Duration? {
        let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]
        for unit in units where text.hasSuffix(unit.suffix) {
            guard let number = Double(text.dropLast(unit.suffix.count)), number >= 0, number.isFinite else { return nil }
            return .milliseconds(Int64((number * unit.seconds * 1000).rounded()))
        }
        guard let seconds = Double(text), seconds >= 0, seconds.isFinite else { return nil }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    static func parseByteCount(_ text: String) -> Int? {
        let upper = text.uppercased()
        let units: [(suffix: String, factor: Int)] = [("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10), ("B", 1)]
        for unit in units where upper.hasSuffix(unit.suffix) {
            guard let number = Double(upper.dropLast(unit.suffix.count)), number >= 0, number < 1e15 else { return nil }
            return Int(number * Double(unit.factor))
        }
        guard let bytes = Int(text), bytes >= 0 else { return nil }
        return bytes
    }
}
