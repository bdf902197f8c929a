import Foundation
import RichPush

/// Entry point: `richpush <command> [options]`. Exit status 0 ok, 1 findings or failures, 2 usage, 74 when standard
/// output refuses a result (`StandardOutput`).
let commands = CommandList.all

@MainActor func mainHelp() -> String {
    var text = "richpush \(RichPushInfo.version): server-side media enrichment for push notifications, iPhone and Android alike\n\n"
    text += "Usage: richpush <command> [options]\n\nCommands:\n"
    for command in commands {
        text += "  " + command.name.padding(toLength: 10, withPad: " ", startingAt: 0) + command.abstract + "\n"
    }
    text += "\nRun 'richpush <command> --help' for a command's options. 'richpush --version' prints the version.\n"
    return text
}

@MainActor func runMain() async -> Int32 {
    LargeAllocations.returnToTheSystemWhenFreed()
    var arguments = Array(CommandLine.arguments.dropFirst())
    guard let first = arguments.first else {
        StandardError.write(mainHelp())
        return 2
    }
    if first == "--version" {
        print("richpush \(RichPushInfo.version)")
        return 0
    }
    // Not in the help: docs/cli.md's option tables and docs/limits.md's table, checked by tests and rewritten by
    // scripts/update-option-table.sh.
    if arguments == ["help", "--markdown"] {
        print(OptionTable.markdown(commands: commands), terminator: "")
        return 0
    }
    if arguments == ["help", "--limits"] {
        print(LimitsTable.markdown(), terminator: "")
        return 0
    }
    if first == "--help" || first == "-h" || first == "help" {
        print(mainHelp(), terminator: "")
        return 0
    }
    arguments.removeFirst()
    guard let command = commands.first(where: { $0.name == first }) else {
        StandardError.write("richpush: \(UsageError.unknownCommand(first))\n")
        return 2
    }
    if arguments.contains("--help") || arguments.contains("-h") {
        print(command.help, terminator: "")
        return 0
    }
    var parsed: ParsedOptions?
    do {
        let everyOption = Set(commands.flatMap { $0.definitions.map(\.name) })
        let options = try ParsedOptions.parse(
            arguments, command: command.name, definitions: command.definitions,
            environment: ProcessInfo.processInfo.environment, otherCommandsOptions: everyOption)
        parsed = options
        if options.positionals.count > command.maximumPositionals {
            throw UsageError.unexpectedArgument(options.positionals[command.maximumPositionals], command: command.name)
        }
        return try await command.run(options)
    } catch let error as UsageError {
        // A value from the environment or the configuration file is named as such: a flag is not where to look.
        let note = error.option.flatMap { parsed?.source(of: $0)?.note } ?? ""
        StandardError.write("richpush \(command.name): \(error)\(note)\n")
        return 2
    } catch {
        // After the options parsed, the command's log has begun: its fatal error is one more JSON line.
        Logger.error("fatal", "\(error)", [("command", .string(command.name))])
        return (error as? any CommandFailure)?.exitStatus ?? 1
    }
}

exit(await runMain())
