import Foundation

extension Double {
    /// The number with `fractionDigits` digits after the point, as `String(format: "%.Nf")` writes it (rounded to
    /// nearest, a tie to even on the exact binary value), without Foundation's formatter: that one parses the format
    /// and builds a CFString per call, which cost about 5% of a warm job's CPU when every media result wrote its
    /// score with it. A value whose scaled form is not a whole number plus an exact tie is rounded here; a tie, a
    /// negative or non-finite value, or one too large for an `Int` goes through the formatter, so the two always
    /// agree.
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
