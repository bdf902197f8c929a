/// What a result line carries besides its `id`, `line`, `status`, `target` and `timings`, which every line has: the
/// sender's `request`, the device's `apns` request, `media` and `diagnostics`. A sender that posts `request` to its
/// provider needs only that (`--result request`, a much shorter line: docs/benchmarks.md, "Result lines by part").
/// The default is every part.
public struct ResultParts: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let request = ResultParts(rawValue: 1 << 0)
    public static let apns = ResultParts(rawValue: 1 << 1)
    public static let media = ResultParts(rawValue: 1 << 2)
    public static let diagnostics = ResultParts(rawValue: 1 << 3)
    public static let all: ResultParts = [.request, .apns, .media, .diagnostics]

    /// Each part by the key it is written under, in the line's key order.
    package static let named: [(name: String, part: ResultParts)] = [
        ("request", .request), ("apns", .apns), ("media", .media), ("diagnostics", .diagnostics),
    ]

    /// The parts' names, comma-separated, in the line's key order.
    package var names: String { Self.named.filter { contains($0.part) }.map(\.name).joined(separator: ",") }
}
