/// Facts about the library itself.
public enum RichPushInfo {
    /// The library's semantic version, printed by `richpush --version` and `richpush_build_info`.
    public static let version = "0.1.0"
}
