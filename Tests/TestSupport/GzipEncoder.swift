import Foundation

/// Builds gzip members of all-zero data with a fixed-Huffman deflate stream (one literal, then 258-byte
/// back-references), so tests get a real high-ratio gzip body without linking zlib.
public enum GzipEncoder {
    public static func zeros(count: Int) -> Data {
        var writer = BitWriter()
        writer.write(1, bits: 1)          // BFINAL
        writer.write(1, bits: 2)          // BTYPE = fixed Huffman
        var remaining = count
        if remaining > 0 {
            writer.writeCode(0x30, length: 8)  // literal 0
            remaining -= 1
        }
        while remaining >= 258 {
            writer.writeCode(0xC5, length: 8)  // length code 285 = 258 bytes
            writer.writeCode(0, length: 5)     // distance code 0 = 1 byte back
            remaining -= 258
        }
        for _ in 0..<remaining { writer.writeCode(0x30, length: 8) }
        writer.writeCode(0, length: 7)         // end of block
        var member: [UInt8] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]
        member += writer.finished
        let crc = crc32OfZeros(count: count)
        for shift in stride(from: 0, to: 32, by: 8) { member.append(UInt8(truncatingIfNeeded: crc >> UInt32(shift))) }
        for shift in stride(from: 0, to: 32, by: 8) { member.append(UInt8(truncatingIfNeeded: UInt32(truncatingIfNeeded: count) >> UInt32(shift))) }
        return Data(member)
    }

    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    private static func crc32OfZeros(count: Int) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for _ in 0..<count { crc = table[Int(crc & 0xff)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }

    private struct BitWriter {
        var bytes: [UInt8] = []
        var current: UInt32 = 0
        var used: UInt32 = 0

        /// Writes `value`'s low bits least-significant first (header fields, extra bits).
        mutating func write(_ value: UInt32, bits: UInt32) {
            for bit in 0..<bits { push((value >> bit) & 1) }
        }

        /// Writes a Huffman code most-significant bit first, as deflate requires.
        mutating func writeCode(_ code: UInt32, length: UInt32) {
            for bit in (0..<length).reversed() { push((code >> bit) & 1) }
        }

        private mutating func push(_ bit: UInt32) {
            current |= bit << used
            used += 1
            if used == 8 { bytes.append(UInt8(current)); current = 0; used = 0 }
        }

        var finished: [UInt8] { used > 0 ? bytes + [UInt8(current)] : bytes }
    }
}
