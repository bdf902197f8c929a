/// Serves URLs that start with `prefix` from files under `directory`, never outside it.
public struct LocalOrigin: Sendable, Hashable {
    public var prefix: String
    public var directory: String

    public init(prefix: String, directory: String) {
        self.prefix = prefix
        self.directory = directory
    }

    /// Parses the command-line form `PREFIX=DIR`, e.g. `https://media.example.com/=Fixtures/media`.
    /// The split is at the last `=` because prefixes may contain `=` in a query-less path rarely, directories never.
    public init(parsing text: String) throws(FetchError) {
        guard let separator = text.lastIndex(of: "="),
              separator != text.startIndex, text.index(after: separator) != text.endIndex
        else {
            throw .invalidConfiguration(reason: "local origin '\(text)' must look like PREFIX=DIR")
        }
        self.prefix = String(text[..<separator])
        self.directory = String(text[text.index(after: separator)...])
    }
}
