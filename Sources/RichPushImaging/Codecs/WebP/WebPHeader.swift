/// RIFF/WebP header: VP8, VP8L or VP8X (extended: alpha, animation, ICC flags, canvas size), and how the still
/// is coded (`ImageProbe.webpCoding`).
enum WebPHeader {
    static func probe(_ reader: ByteReader) throws(ImageError) -> ImageProbe {
        guard reader.count >= 30 else { throw .corrupt(reason: "WebP file is too short") }
        if reader.matches("VP8X", at: 12) {
            guard let flags = reader.byte(20), let widthMinusOne = reader.uint24LittleEndian(24),
                  let heightMinusOne = reader.uint24LittleEndian(27) else { throw .corrupt(reason: "WebP VP8X header truncated") }
            var probe = ImageProbe(format: .webp, width: widthMinusOne + 1, height: heightMinusOne + 1,
                                   hasAlpha: flags & 0x10 != 0, isAnimated: flags & 0x02 != 0, orientation: 1,
                                   hasICCProfile: flags & 0x20 != 0)
            probe.webpCoding = probe.isAnimated ? .animated : extendedCoding(reader)
            return probe
        }
        if reader.matches("VP8L", at: 12) {
            guard reader.byte(20) == 0x2F, let bits = reader.uint32LittleEndian(21) else {
                throw .corrupt(reason: "WebP lossless signature missing")
            }
            var probe = ImageProbe(format: .webp, width: (bits & 0x3FFF) + 1, height: ((bits >> 14) & 0x3FFF) + 1,
                                   hasAlpha: (bits >> 28) & 1 == 1, isAnimated: false, orientation: 1, hasICCProfile: false)
            probe.webpCoding = .lossless
            return probe
        }
        if reader.matches("VP8 ", at: 12) {
            guard reader.byte(23) == 0x9D, reader.byte(24) == 0x01, reader.byte(25) == 0x2A,
                  let width = reader.uint16LittleEndian(26), let height = reader.uint16LittleEndian(28) else {
                throw .corrupt(reason: "WebP lossy start code missing")
            }
            var probe = ImageProbe(format: .webp, width: width & 0x3FFF, height: height & 0x3FFF, hasAlpha: false,
                                   isAnimated: false, orientation: 1, hasICCProfile: false)
            probe.webpCoding = .lossy(alpha: nil)
            return probe
        }
        throw .corrupt(reason: "WebP has no VP8, VP8L or VP8X chunk")
    }

    /// An extended still's coding, from the chunks after VP8X: its VP8L or VP8 chunk, and an ALPH chunk before a
    /// VP8 one (the low two bits of its first byte: 0 raw, 1 lossless). A file that ends before either is
    /// counted as lossless, libwebp's costlier case (the decode then refuses it anyway).
    private static func extendedCoding(_ reader: ByteReader) -> ImageProbe.WebPCoding {
        var offset = 12, alpha: ImageProbe.WebPCoding.AlphaCompression?
        while let size = reader.uint32LittleEndian(offset + 4) {
            if reader.matches("VP8L", at: offset) { return .lossless }
            if reader.matches("VP8 ", at: offset) { return .lossy(alpha: alpha) }
            if reader.matches("ALPH", at: offset), let method = reader.byte(offset + 8) {
                alpha = method & 3 == 0 ? .raw : .lossless
            }
            offset += 8 + size + size % 2
        }
        return .lossless
    }
}
