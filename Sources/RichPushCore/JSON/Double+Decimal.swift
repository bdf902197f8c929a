import Foundation

extension Double {
    /// The number with `fractionDigits` digits after the point, exactly as `String(format: "%.Nf")` writes it, without
    /// Foundation's formatter, which parses the format and builds a CFString on every call (a warm job paid that for
    /// each media result's score: docs/benchmarks.md, "The warm path against ffa4335"). Rounding the scaled value to
    /// nearest agrees with the formatter except at an exact tie, so a tie goes through the formatter, as do negative,
    /// non-finite and very large values.
    package func decimalString(fractionDigits: Int) -> String {
        precondition((0...9).contains(fractionDigits), "fractionDigits must be 0...9")
        var scale = 1
        for _ in 0..<fractionDigits { scale *= 10 }
        let scaled = self * Double(scale)
        let rounded = scaled.rounded()
        // A scaled value within half an ulp of a tie rounds to the tie itself, so any value the formatter could round
        // the other way lands in the fallback.
        guard scaled >= 0, scaled < 1e15, abs(scaled - rounded) != 0.5 else {
            return String(format: "%.\(fractionDigits)f", self)
        }
        let whole = Int(rounded)
        guard fractionDigits > 0 else { return String(whole) }
        let fraction = String(whole % scale)
        return "\(whole / scale)." + String(repeating: "0", count: fractionDigits - fraction.count) + fraction
    }
}
