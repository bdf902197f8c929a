/// Options that several commands take with the same meaning, declared once.
enum SharedOption {
    /// `process` and `consume`: where the metrics text goes.
    static let metricsFile = OptionKey(
        "metrics-file", .text("PATH"), defaultText: "none", help: "Rewrite Prometheus text metrics to PATH every 10 s.")
    /// `validate` and `cache`: how the report is written.
    static let format = OptionKey("format", .choice("FORMAT", ["text", "json"]), default: "text", help: "Report format: text or json.")
}
