/// The options of `richpush validate` besides the worker options.
enum ValidateOption {
    static let noFetch = OptionKey("no-fetch", .flag, default: false, help: "Check structure only; fetch and render nothing.")
    static let html = OptionKey(
        "html", .text("FILE"), defaultText: "none",
        help: "Also write the story preview page to FILE: one self-contained file, images inlined.")

    static let all: [any AnyOptionKey] = [noFetch, SharedOption.format, html]
}
