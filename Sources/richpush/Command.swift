/// A `richpush` subcommand: its options, its help text and what it does.
protocol Command: SendableMetatype {
    static var name: String { get }
    static var abstract: String { get }
    static var usage: String { get }
    static var options: [OptionDefinition] { get }
    /// Returns the process exit status: 0 ok, 1 findings or failures. Usage mistakes throw `UsageError` (status 2).
    static func run(_ options: ParsedOptions) async throws -> Int32
}

extension Command {
    static var help: String {
        var text = "\(abstract)\n\nUsage: \(usage)\n\nOptions:\n"
        let all = options + [OptionDefinition("help", .flag, help: "Show this help and exit.")]
        let width = all.map(\.usage.count).max() ?? 0
        for option in all {
            text += "  " + option.usage.padding(toLength: width + 2, withPad: " ", startingAt: 0) + option.help + "\n"
        }
        text += "\nEvery option can also be set as RICHPUSH_<NAME> in the environment or as \"<name>\" in the\n"
        text += "--config JSON file; flags win over the environment, which wins over the file.\n"
        return text
    }
}

import Foundation
