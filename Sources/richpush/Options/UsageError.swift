/// A mistake in how the command was called. The CLI prints it with a hint and exits with status 2.
enum UsageError: Error, CustomStringConvertible {
    case unknownCommand(String)
    case unknownOption(String, command: String)
    case shortOption(String, command: String)
    case missingValue(option: String)
    case invalidValue(option: String, value: String, expected: String)
    case unexpectedValue(option: String)
    case missingArgument(String)
    case unexpectedArgument(String, command: String)
    case unknownEnvironmentVariable(String, suggestion: String?)
    case requiredOption(option: String, reason: String)
    case unreadableConfiguration(path: String, reason: String)

    /// The option the error is about, when there is one.
    var option: String? {
        switch self {
        case .missingValue(let option), .invalidValue(let option, _, _), .unexpectedValue(let option), .requiredOption(let option, _):
            option
        default: nil
        }
    }

    var description: String {
        switch self {
        case .unknownCommand(let name):
            return "unknown command '\(name)'; run 'richpush --help' for the list of commands"
        case .unknownOption(let name, let command):
            return "unknown option '\(name)' for '\(command)'; run 'richpush \(command) --help'"
        case .shortOption(let token, let command):
            return "'\(token)': short options are not supported; write the long form (run 'richpush \(command) --help')"
        case .missingValue(let option):
            return "option '--\(option)' needs a value"
        case .invalidValue(let option, let value, let expected):
            return "option '--\(option)' got '\(value)'; expected \(expected)"
        case .unexpectedValue(let option):
            return "option '--\(option)' is a flag and takes no value"
        case .unexpectedArgument(let argument, let command):
            return "unexpected argument '\(argument)'; run 'richpush \(command) --help'"
        case .unknownEnvironmentVariable(let variable, let suggestion):
            return "unknown environment variable \(variable)"
                + (suggestion.map { "; did you mean \($0)?" } ?? "; every RICHPUSH_ variable names an option of some command")
        case .missingArgument(let what):
            return "missing \(what)"
        case .requiredOption(let option, let reason):
            return "option '--\(option)' is required: \(reason)"
        case .unreadableConfiguration(let path, let reason):
            return "cannot read configuration file \(path): \(reason)"
        }
    }
}
