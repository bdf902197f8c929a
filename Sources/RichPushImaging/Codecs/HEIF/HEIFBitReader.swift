/// Reads the fixed-width and exp-Golomb fields of an HEVC or AV1 header, most significant bit first. Every read
/// past the end returns nil, so a truncated header is an error, never a trap.
struct HEIFBitReader {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// HEVC's NAL payload without its emulation-prevention bytes (the 0x03 an encoder inserts after two zero bytes so
    /// that no start code appears inside a NAL unit): the fields are defined over these unescaped bytes.
    static func unescapingNAL(_ bytes: some Sequence<UInt8>) -> HEIFBitReader {
        var payload: [UInt8] = []
        var zeros = 0
        for byte in bytes {
            if zeros >= 2 && byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            payload.append(byte)
        }
        return HEIFBitReader(payload)
    }

    /// `count` bits (at most 32) as an unsigned number.
    mutating func bits(_ count: Int) -> Int? {
        guard count >= 0, count <= 32, position + count <= bytes.count * 8 else { return nil }
        var value = 0
        for _ in 0..<count {
            value = value << 1 | Int(bytes[position >> 3] >> (7 - position & 7) & 1)
            position += 1
        }
        return value
    }

    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, position + count <= bytes.count * 8 else { return false }
        position += count
        return true
    }

    /// An unsigned exp-Golomb number, ue(v). At most 31 leading zeros are accepted: no field read here is larger.
    mutating func unsignedExpGolomb() -> Int? {
        var leadingZeros = 0
        while true {
            guard let bit = bits(1) else { return nil }
            if bit == 1 { break }
            leadingZeros += 1
            guard leadingZeros < 32 else { return nil }
        }
        guard let suffix = bits(leadingZeros) else { return nil }
        return (1 << leadingZeros) - 1 + suffix
    }

    /// AV1's leb128(): little-endian groups of seven bits, at most eight bytes.
    mutating func leb128() -> Int? {
        var value = 0
        for index in 0..<8 {
            guard let byte = bits(8) else { return nil }
            value |= (byte & 0x7F) << (index * 7)
            if byte & 0x80 == 0 { return value }
        }
        return nil
    }

    /// The byte offset of the next whole byte (the reader is byte-aligned where this is used).
    var byteOffset: Int { (position + 7) / 8 }
}
