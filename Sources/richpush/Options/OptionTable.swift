import Foundation

/// docs/cli.md's option tables, generated from the same declarations as `--help`: `richpush help --markdown` prints them
/// and a test fails when that copy differs (scripts/update-option-table.sh rewrites it).
enum OptionTable {
    /// Markdown: one table of the worker options, then one per command of the options only it takes.
    static func markdown(commands: [any Command.Type]) -> String {
        let shared = WorkerOption.all.map(\.definition)
        let sharedNames = Set(shared.map(\.name))
        var workers: [String] = []
        var sections = ""
        for command in commands {
            let names = command.definitions.map { $0.name }
            let isWorker = sharedNames.isSubset(of: names)
            if isWorker { workers.append(command.name) }
            let own = command.definitions.filter { !sharedNames.contains($0.name) }
            guard !own.isEmpty else { continue }
            let taken = names.filter { sharedNames.contains($0) }.map { "`--\($0)`" }
            let besides = isWorker ? "besides the shared ones" : "of the shared ones it takes only " + sentence(taken)
            sections += "\n`\(command.name)` (\(besides)):\n\n" + table(own)
        }
        return "Shared by \(sentence(workers)):\n\n" + table(shared) + sections
    }

    private static func table(_ definitions: [OptionDefinition]) -> String {
        var text = "| option | environment variable | default | description |\n|---|---|---|---|\n"
        for definition in definitions {
            let option = definition.kind == .value || definition.kind == .repeatedValue
                ? "`--\(definition.name) \(definition.valueName)`" : "`--\(definition.name)`"
            let repeatable = definition.kind == .repeatedValue ? " (repeatable)" : ""
            let defaultText = definition.defaultText.map { definition.defaultIsValue ? "`\($0)`" : $0 }
                ?? (definition.kind == .flag ? "off" : "none")
            let cells = [option + repeatable, "`\(definition.environmentVariable)`", defaultText, definition.summary]
            text += "| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |\n"
        }
        return text
    }

    /// `a, b and c`.
    private static func sentence(_ words: [String]) -> String {
        guard words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " and " + (words.last ?? "")
    }
}
