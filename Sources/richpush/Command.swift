/// A `richpush` subcommand: its options, its help text and what it does.
protocol Command: SendableMetatype {
    static var name: String { get }
    static var abstract: String { get }
    static var usage: String { get }
    /// Declared once in `WorkerOption`, `SharedOption` and the command's own `…Option` namespace.
    static var options: [any AnyOptionKey] { get }
    /// How many arguments other than options the command takes; more is a usage error. Default none.
    static var maximumPositionals: Int { get }
    /// Text after the options in `--help`, e.g. what each exit status means. Default none.
    static var helpNotes: String { get }
    /// Returns the process exit status: 0 ok, 1 findings or failures. Usage mistakes throw `UsageError` (status 2).
    static func run(_ options: ParsedOptions) async throws -> Int32
}

/// An error that ends a command with its own exit status rather than 1.
protocol CommandFailure: Error {
    var exitStatus: Int32 { get }
}

extension Command {
    static var maximumPositionals: Int { 0 }
    static var helpNotes: String { "" }

    /// What parsing checks arguments against.
    static var definitions: [OptionDefinition] { options.map(\.definition) }

    static var help: String {
        var text = "\(abstract)\n\nUsage: \(usage)\n\nOptions:\n"
        let all = definitions + [OptionDefinition("help", .flag, help: "Show this help and exit.")]
        let width = all.map(\.usage.count).max() ?? 0
        for option in all {
            text += "  " + option.usage.padding(toLength: width + 2, withPad: " ", startingAt: 0) + option.help + "\n"
        }
        text += "\nEvery option can also be set as RICHPUSH_<NAME> in the environment or as \"<name>\" in the\n"
        text += "--config JSON file; flags win over the environment, which wins over the file.\n"
        if !helpNotes.isEmpty { text += "\n" + helpNotes }
        return text
    }
}

import Foundation
