import CPNG   // libpng's header brings zlib's crc32
import Foundation

/// PNG files built by tests, chunk by chunk: the one writer every test uses, so a CRC or length is computed the
/// same way everywhere.
public enum PNGFile {
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// One chunk: the body's length, the type, the body, then the CRC-32 of type and body (zlib's).
    public static func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + body
        return bigEndian32(UInt32(body.count)) + typed + bigEndian32(UInt32(crc32(0, typed, UInt32(typed.count))))
    }

    /// An IHDR body: compression and filter method 0.
    public static func header(width: Int, height: Int, depth: UInt8 = 8, colourType: UInt8, interlaced: Bool = false) -> [UInt8] {
        bigEndian32(UInt32(width)) + bigEndian32(UInt32(height)) + [depth, colourType, 0, 0, interlaced ? 1 : 0]
    }

    /// A whole file: the signature, IHDR with `header`, `chunks` in order, then IEND.
    public static func file(header: [UInt8], chunks: [(type: String, body: [UInt8])]) -> Data {
        Data(signature + chunk("IHDR", header) + chunks.flatMap { chunk($0.type, $0.body) } + chunk("IEND", []))
    }
}

/// `value` as 4 bytes, most significant first (PNG, ISO base media and most other binary formats).
public func bigEndian32(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
}
