import Foundation

/// SHA-256 (FIPS 180-4) in pure Swift, because CryptoKit is not available on Linux.
///
/// Streaming: feed any number of chunks with `update`, then call `finalize` once. Costs one pass over the input and
/// 64 bytes of buffer; `hexDigest(ofFileAt:)` reads the file in 1 MiB chunks, so big objects are never loaded whole.
public struct SHA256: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )
    private var buffer: [UInt8] = []
    private var messageLength: UInt64 = 0

    public init() {
        buffer.reserveCapacity(64)
    }

    /// Adds `bytes` to the message.
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update(buffer: $0) }
    }

    /// Adds the bytes of `data` to the message; faster than the generic overload for large chunks.
    public mutating func update(_ data: Data) {
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            update(buffer: raw)
        }
    }

    /// Adds the bytes in `raw` to the message.
    public mutating func update(buffer raw: UnsafeRawBufferPointer) {
        var index = 0
        let count = raw.count
        messageLength &+= UInt64(count)
        // Top up a partially filled block first.
        while !buffer.isEmpty && index < count {
            buffer.append(raw[index])
            index += 1
            if buffer.count == 64 {
                compressBuffer()
            }
        }
        while count - index >= 64 {
            compress(block: raw, offset: index)
            index += 64
        }
        while index < count {
            buffer.append(raw[index])
            index += 1
        }
    }

    /// Pads the message and returns the 32-byte digest. Call once.
    public mutating func finalize() -> [UInt8] {
        let bitLength = messageLength &* 8
        var padding: [UInt8] = [0x80]
        let lengthAfterMarker = (buffer.count + 1) % 64
        let zeroCount = lengthAfterMarker <= 56 ? 56 - lengthAfterMarker : 120 - lengthAfterMarker
        padding.append(contentsOf: repeatElement(0, count: zeroCount))
        for shift in stride(from: 56, through: 0, by: -8) {
            padding.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        // Padding must not count toward the message length, so bypass `update(buffer:)`.
        for byte in padding {
            buffer.append(byte)
            if buffer.count == 64 {
                compressBuffer()
            }
        }
        let words = [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7]
        var digest: [UInt8] = []
        digest.reserveCapacity(32)
        for word in words {
            digest.append(UInt8(truncatingIfNeeded: word >> 24))
            digest.append(UInt8(truncatingIfNeeded: word >> 16))
            digest.append(UInt8(truncatingIfNeeded: word >> 8))
            digest.append(UInt8(truncatingIfNeeded: word))
        }
        return digest
    }

    /// Lowercase hexadecimal digest of `data`. Costs one pass over the bytes.
    public static func hexDigest(of data: Data) -> String {
        var hasher = SHA256()
        hasher.update(data)
        return hexString(hasher.finalize())
    }

    /// Lowercase hexadecimal digest of a UTF-8 string.
    public static func hexDigest(of string: String) -> String {
        hexDigest(of: Data(string.utf8))
    }

    static func hexString(_ bytes: [UInt8]) -> String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var characters: [UInt8] = []
        characters.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            characters.append(digits[Int(byte >> 4)])
            characters.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: characters, as: UTF8.self)
    }

    private mutating func compressBuffer() {
        let block = buffer
        block.withUnsafeBytes { compress(block: $0, offset: 0) }
        buffer.removeAll(keepingCapacity: true)
    }

    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    private mutating func compress(block: UnsafeRawBufferPointer, offset: Int) {
        // The message schedule lives on the stack: no heap allocation per 64-byte block.
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            for index in 0..<16 {
                let base = offset + index * 4
                w[index] = UInt32(block[base]) << 24 | UInt32(block[base + 1]) << 16
                    | UInt32(block[base + 2]) << 8 | UInt32(block[base + 3])
            }
            for index in 16..<64 {
                let s0 = rotateRight(w[index - 15], 7) ^ rotateRight(w[index - 15], 18) ^ (w[index - 15] >> 3)
                let s1 = rotateRight(w[index - 2], 17) ^ rotateRight(w[index - 2], 19) ^ (w[index - 2] >> 10)
                w[index] = w[index - 16] &+ s0 &+ w[index - 7] &+ s1
            }
            var a = state.0, b = state.1, c = state.2, d = state.3
            var e = state.4, f = state.5, g = state.6, h = state.7
            Self.roundConstants.withUnsafeBufferPointer { k in
                for index in 0..<64 {
                    let s1 = rotateRight(e, 6) ^ rotateRight(e, 11) ^ rotateRight(e, 25)
                    let choice = (e & f) ^ (~e & g)
                    let temporary1 = h &+ s1 &+ choice &+ k[index] &+ w[index]
                    let s0 = rotateRight(a, 2) ^ rotateRight(a, 13) ^ rotateRight(a, 22)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    let temporary2 = s0 &+ majority
                    h = g; g = f; f = e; e = d &+ temporary1
                    d = c; c = b; b = a; a = temporary1 &+ temporary2
                }
            }
            state.0 &+= a; state.1 &+= b; state.2 &+= c; state.3 &+= d
            state.4 &+= e; state.5 &+= f; state.6 &+= g; state.7 &+= h
        }
    }

    @inline(__always)
    private func rotateRight(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value >> count) | (value << (32 &- count))
    }
}
