import Foundation

/// The conversions every layer needs from `Duration`, in one place.
extension Duration {
    /// Seconds as a floating-point number, for `Date` arithmetic and metrics.
    package var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    /// Whole milliseconds, rounded up so that a positive duration never becomes 0 (Redis `BLOCK 0` blocks
    /// forever, a `PX 0` lease is refused).
    package var roundedUpMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let milliseconds = seconds * 1_000 + attoseconds / 1_000_000_000_000_000
        return attoseconds % 1_000_000_000_000_000 > 0 ? milliseconds + 1 : milliseconds
    }
}
