/// The options of `richpush process` besides the worker options.
enum ProcessOption {
    static let unordered = OptionKey(
        "unordered", .flag, default: false, help: "Write results in completion order instead of input order.")
}
