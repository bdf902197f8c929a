/// Durations as options write them: `250ms`, `25s`, `5m`, `2h`, `7d`, or a plain number of seconds.
enum DurationText {
    private static let units: [(suffix: String, milliseconds: Int64)] = [
        ("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000), ("ms", 1),
    ]

    /// The duration `text` names, or nil when it is not one (negative, not a number, an unknown unit).
    static func parse(_ text: String) -> Duration? {
        // "ms" before "s" and "m": the longest suffix decides.
        for unit in units.sorted(by: { $0.suffix.count > $1.suffix.count }) where text.hasSuffix(unit.suffix) {
            guard let number = Double(text.dropLast(unit.suffix.count)), number >= 0, number.isFinite else { return nil }
            return .milliseconds(Int64((number * Double(unit.milliseconds)).rounded()))
        }
        guard let seconds = Double(text), seconds >= 0, seconds.isFinite else { return nil }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// `duration` in the largest unit that divides it (whole milliseconds): 300 s is `5m`, 1.5 s is `1500ms`.
    static func render(_ duration: Duration) -> String {
        let milliseconds = duration / .milliseconds(1)
        let total = Int64(milliseconds.rounded())
        let unit = units.first { total != 0 && total % $0.milliseconds == 0 } ?? ("s", 1000)
        return "\(total / unit.milliseconds)\(unit.suffix)"
    }
}
