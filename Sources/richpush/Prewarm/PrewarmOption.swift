import RichPush

/// The options of `richpush prewarm` besides the worker options.
enum PrewarmOption {
    static let urls = OptionKey(
        "urls", .flag, default: false, help: "Inputs are URL lists (one URL per line, # comments) instead of payloads.")
    static let variant = OptionKey(
        "variant", .list("NAME"), default: [], defaultText: VariantName.attachment,
        help: "Variant for --urls input: " + EnricherConfiguration.defaultVariants.keys.sorted().joined(separator: ", ") + ".")
    static let allowFailures = OptionKey("allow-failures", .flag, default: false, help: "Exit 0 even when some items failed.")

    static let all: [any AnyOptionKey] = [urls, variant, allowFailures]
}
