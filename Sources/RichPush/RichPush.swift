/// Namespace for facts about the library itself.
public enum RichPush {
    /// The library's semantic version, printed by `richpush --version`.
    public static let version = "0.1.0"
}
