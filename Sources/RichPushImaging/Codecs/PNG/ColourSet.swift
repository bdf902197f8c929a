/// Up to `limit` distinct packed colours, numbered from 0 in the order they were first seen: an open-addressed
/// table at most half full, so a lookup is a hash and a short probe.
///
/// Cost: 8 bytes per slot, at least 1,024 slots and twice `limit + 1`.
struct ColourSet {
    let limit: Int
    private(set) var count = 0
    private var keys: [UInt32]
    private var numbers: [Int32]
    private let shift: UInt32

    init(limit: Int) {
        var slots = 1024
        while slots < 2 * (limit + 1) { slots <<= 1 }
        self.limit = limit
        keys = [UInt32](repeating: 0, count: slots)
        numbers = [Int32](repeating: -1, count: slots)
        shift = UInt32(32 - slots.trailingZeroBitCount)
    }

    /// The colour's number, after adding it if it is new; nil when it is new and the set already holds `limit`.
    mutating func number(of colour: UInt32) -> Int? {
        let mask = keys.count - 1
        var slot = Int((colour &* 0x9E37_79B1) >> shift)
        while numbers[slot] >= 0, keys[slot] != colour { slot = (slot + 1) & mask }
        if numbers[slot] < 0 {
            guard count < limit else { return nil }
            keys[slot] = colour
            numbers[slot] = Int32(count)
            count += 1
        }
        return Int(numbers[slot])
    }
}
