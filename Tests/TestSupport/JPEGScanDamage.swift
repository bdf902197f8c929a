import Foundation

/// Damaged JPEGs for integrity tests and benchmarks: bit flips in the entropy-coded data of the first scan, where
/// libjpeg cannot see most of them (no checksum; Huffman codes resynchronise), as a bad disk or transfer leaves them.
public enum JPEGScanDamage {
    /// The bytes of the first scan's entropy-coded data: from after the SOS segment to the next marker that is not
    /// a stuffed 0xFF00 or a restart marker. Nil when the file has no SOS.
    public static func firstScanData(of bytes: Data) -> Range<Int>? {
        let data = [UInt8](bytes)
        var offset = 2
        while offset + 4 <= data.count, data[offset] == 0xFF {
            let marker = data[offset + 1]
            let length = Int(data[offset + 2]) << 8 | Int(data[offset + 3])
            if marker == 0xDA {
                let start = offset + 2 + length
                var end = start
                while end + 1 < data.count, !(data[end] == 0xFF && data[end + 1] != 0 && !(0xD0...0xD7).contains(data[end + 1])) {
                    end += 1
                }
                return start..<end
            }
            offset += 2 + length
        }
        return nil
    }

    /// `bytes` with `count` randomly chosen bits of the first scan's data flipped (distinct positions), or nil
    /// when it has no scan.
    public static func flippingBits(_ count: Int, inFirstScanOf bytes: Data, using random: inout SplitMix) -> Data? {
        guard let scan = firstScanData(of: bytes), !scan.isEmpty else { return nil }
        var damaged = bytes
        var flipped = Set<Int>()
        while flipped.count < min(count, scan.count * 8) {
            let bit = Int.random(in: 0..<(scan.count * 8), using: &random)
            guard flipped.insert(bit).inserted else { continue }
            damaged[scan.lowerBound + bit / 8] ^= UInt8(1 << (bit % 8))
        }
        return damaged
    }
}
