/// Sizes as options write them: `10MB`, `512KB`, `2GB` (powers of 1024), or a plain number of bytes.
enum ByteCountText {
    private static let units: [(suffix: String, factor: Int)] = [("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10), ("B", 1)]

    /// The byte count `text` names, or nil when it is not one (negative, not a number, too large).
    static func parse(_ text: String) -> Int? {
        let upper = text.uppercased()
        for unit in units where upper.hasSuffix(unit.suffix) {
            guard let number = Double(upper.dropLast(unit.suffix.count)), number >= 0, number < 1e15 else { return nil }
            return Int(number * Double(unit.factor))
        }
        guard let bytes = Int(text), bytes >= 0 else { return nil }
        return bytes
    }

    /// `bytes` in the largest unit that divides it: 10485760 is `10MB`, 1500 stays `1500`.
    static func render(_ bytes: Int) -> String {
        guard let unit = units.first(where: { bytes != 0 && bytes % $0.factor == 0 && $0.factor > 1 }) else { return String(bytes) }
        return "\(bytes / unit.factor)\(unit.suffix)"
    }
}
