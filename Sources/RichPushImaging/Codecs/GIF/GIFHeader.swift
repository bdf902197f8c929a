/// GIF logical screen and a block walk that counts frames, for the probe (headers only); `GIFValidator` checks
/// every frame with giflib before a GIF is published.
enum GIFHeader {
    static func probe(_ reader: ByteReader) throws(ImageError) -> ImageProbe {
        guard let width = reader.uint16LittleEndian(6), let height = reader.uint16LittleEndian(8),
              let packed = reader.byte(10) else { throw .corrupt(reason: "GIF logical screen descriptor truncated") }
        guard width > 0, height > 0 else { throw .corrupt(reason: "GIF logical screen is \(width)x\(height)") }
        var offset = 13
        if packed & 0x80 != 0 { offset += 3 << ((packed & 7) + 1) }
        var frames = 0
        var hasTransparency = false
        walk: while let introducer = reader.byte(offset) {
            switch introducer {
            case 0x21:
                if reader.byte(offset + 1) == 0xF9, let flags = reader.byte(offset + 3), flags & 1 == 1 { hasTransparency = true }
                offset = skipSubBlocks(reader, from: offset + 2)
            case 0x2C:
                guard let imagePacked = reader.byte(offset + 9) else { break walk }
                frames += 1
                if frames > 1 { break walk }
                offset += 10
                if imagePacked & 0x80 != 0 { offset += 3 << ((imagePacked & 7) + 1) }
                offset = skipSubBlocks(reader, from: offset + 1)   // skip LZW minimum code size
            default:
                break walk   // trailer (0x3B) or garbage
            }
        }
        guard frames > 0 else { throw .corrupt(reason: "GIF has no image") }
        return ImageProbe(format: .gif, width: width, height: height, hasAlpha: hasTransparency, isAnimated: frames > 1,
                          orientation: 1, hasICCProfile: false)
    }

    private static func skipSubBlocks(_ reader: ByteReader, from start: Int) -> Int {
        var offset = start
        while let size = reader.byte(offset), size > 0 { offset += size + 1 }
        return offset + 1
    }
}
