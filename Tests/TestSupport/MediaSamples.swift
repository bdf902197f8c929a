import Foundation

/// Small generated audio, video and GIF files with the right magic numbers and box structure, for tests of
/// sniffing, byte caps and pass-through (a few hundred bytes each unless a size is asked for).
public enum MediaSamples {
    /// The published name (`AttachmentFormat` raw value) → sample bytes.
    public static let all: [String: Data] = [
        "mp3": mp3(), "m4a": isoMedia(brand: "M4A "), "aiff": aiff(), "wav": wav(),
        "mp4": isoMedia(brand: "isom"), "mov": isoMedia(brand: "qt  ", compatible: ["qt  "]), "m4v": isoMedia(brand: "M4V "),
    ]

    /// An ID3v2.4 tag (empty, syncsafe size 0) followed by MPEG-1 Layer III frames (128 kbit/s, 44.1 kHz,
    /// 417 bytes each, silent payload), about `frames` × 417 bytes.
    public static func mp3(frames: Int = 2) -> Data {
        var data = Data("ID3".utf8) + Data([0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00])
        for _ in 0..<frames { data += mpegFrame() }
        return data
    }

    /// One MPEG-1 Layer III frame header (`FF FB 90 64`) and its 413 bytes of payload.
    public static func mpegFrame() -> Data {
        Data([0xFF, 0xFB, 0x90, 0x64]) + Data(count: 413)
    }

    /// An ISO base media file: `ftyp` (major `brand`, minor 0x200, `compatible` brands, by default `isom` and
    /// `brand`), an empty `moov` and an `mdat` padding the file to at least `size` bytes.
    public static func isoMedia(brand: String, compatible: [String]? = nil, size: Int = 256) -> Data {
        var ftyp = Data(brand.utf8) + bigEndian(0x200)
        for compatibleBrand in compatible ?? ["isom", brand] { ftyp += Data(compatibleBrand.utf8) }
        ftyp = box("ftyp", ftyp)
        let moov = box("moov", box("mvhd", Data(count: 100)))
        let padding = max(0, size - ftyp.count - moov.count - 8)
        return ftyp + moov + box("mdat", Data(repeating: 0x5A, count: padding))
    }

    /// A WAV file: `RIFF....WAVE`, a PCM `fmt ` chunk (mono, 8 kHz, 16 bits) and 200 bytes of silence.
    public static func wav() -> Data {
        let format = littleEndian16(1) + littleEndian16(1) + littleEndian32(8000) + littleEndian32(16000)
            + littleEndian16(2) + littleEndian16(16)
        let chunks = Data("WAVE".utf8) + Data("fmt ".utf8) + littleEndian32(UInt32(format.count)) + format
            + Data("data".utf8) + littleEndian32(200) + Data(count: 200)
        return Data("RIFF".utf8) + littleEndian32(UInt32(chunks.count)) + chunks
    }

    /// An AIFF file: `FORM....AIFF`, a `COMM` chunk (mono, 100 frames, 16 bits, 8 kHz) and an `SSND` chunk.
    public static func aiff() -> Data {
        let sampleRate = Data([0x40, 0x0B, 0xFA, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00])   // 8000 as 80-bit float
        let comm = Data([0x00, 0x01]) + bigEndian(100) + Data([0x00, 0x10]) + sampleRate
        let ssnd = bigEndian(0) + bigEndian(0) + Data(count: 200)
        let chunks = Data("AIFF".utf8) + box(named: "COMM", comm) + box(named: "SSND", ssnd)
        return Data("FORM".utf8) + bigEndian(UInt32(chunks.count)) + chunks
    }

    /// An animated GIF89a of `frames` frames of `side`×`side` pixels, each a flat colour of a 4-colour palette,
    /// with a NETSCAPE loop extension. The LZW data sends a clear code before every second pixel so the code width
    /// stays at 3 bits: about side² × 0.56 bytes per frame, so that size comes from pixel count, not from content.
    public static func animatedGIF(side: Int = 64, frames: Int = 3) -> Data {
        var data = Data("GIF89a".utf8) + littleEndian16(UInt16(side)) + littleEndian16(UInt16(side))
        data += Data([0xF1, 0x00, 0x00])   // global colour table of 4 entries, 2 bits per colour
        data += Data([0x00, 0x00, 0x00, 0xFF, 0x00, 0x00, 0x00, 0xFF, 0x00, 0x00, 0x00, 0xFF])
        data += Data([0x21, 0xFF, 0x0B]) + Data("NETSCAPE2.0".utf8) + Data([0x03, 0x01, 0x00, 0x00, 0x00])
        for frame in 0..<frames {
            data += Data([0x21, 0xF9, 0x04, 0x00, 0x0A, 0x00, 0x00, 0x00])   // 100 ms per frame
            data += Data([0x2C]) + littleEndian16(0) + littleEndian16(0)
                + littleEndian16(UInt16(side)) + littleEndian16(UInt16(side)) + Data([0x00])
            data += Data([0x02]) + subBlocks(lzwClearEveryOtherPixel(pixels: side * side, index: UInt8(frame % 4)))
        }
        return data + Data([0x3B])
    }

    /// Minimum code size 2: clear = 4, end = 5, codes 3 bits wide while at most two codes follow each clear.
    private static func lzwClearEveryOtherPixel(pixels: Int, index: UInt8) -> Data {
        var codes: [UInt32] = []
        for pixel in 0..<pixels {
            if pixel % 2 == 0 { codes.append(4) }
            codes.append(UInt32(index))
        }
        codes.append(5)
        var output = Data()
        var buffer: UInt32 = 0, bits = 0
        for code in codes {
            buffer |= code << bits
            bits += 3
            while bits >= 8 {
                output.append(UInt8(buffer & 0xFF))
                buffer >>= 8
                bits -= 8
            }
        }
        if bits > 0 { output.append(UInt8(buffer & 0xFF)) }
        return output
    }

    private static func subBlocks(_ data: Data) -> Data {
        var output = Data()
        var offset = 0
        while offset < data.count {
            let size = min(255, data.count - offset)
            output.append(UInt8(size))
            output += data[data.startIndex + offset ..< data.startIndex + offset + size]
            offset += size
        }
        return output + Data([0x00])
    }

    private static func box(_ type: String, _ payload: Data) -> Data {
        bigEndian(UInt32(8 + payload.count)) + Data(type.utf8) + payload
    }

    /// An IFF chunk: type, big-endian size, payload, padded to an even length.
    private static func box(named type: String, _ payload: Data) -> Data {
        Data(type.utf8) + bigEndian(UInt32(payload.count)) + payload + (payload.count % 2 == 1 ? Data([0]) : Data())
    }

    private static func bigEndian(_ value: UInt32) -> Data { withUnsafeBytes(of: value.bigEndian) { Data($0) } }
    private static func littleEndian32(_ value: UInt32) -> Data { withUnsafeBytes(of: value.littleEndian) { Data($0) } }
    private static func littleEndian16(_ value: UInt16) -> Data { withUnsafeBytes(of: value.littleEndian) { Data($0) } }
}
