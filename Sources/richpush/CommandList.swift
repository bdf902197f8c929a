/// Every `richpush` command, in the order the main help lists them.
enum CommandList {
    static let all: [any Command.Type] = [
        ProcessCommand.self, ValidateCommand.self, PrewarmCommand.self, CacheCommand.self, ConsumeCommand.self, ServeCommand.self,
    ]
}
