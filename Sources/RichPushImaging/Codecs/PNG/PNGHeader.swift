/// PNG chunk walk up to IDAT: IHDR, tRNS, iCCP, acTL.
enum PNGHeader {
    static func probe(_ reader: ByteReader) throws(ImageError) -> ImageProbe {
        guard reader.uint32BigEndian(8) == 13, reader.matches("IHDR", at: 12),
              let width = reader.uint32BigEndian(16), let height = reader.uint32BigEndian(20),
              let bitDepth = reader.byte(24), let colorType = reader.byte(25), let interlace = reader.byte(28) else {
            throw .corrupt(reason: "PNG does not start with a valid IHDR chunk")
        }
        guard width > 0, height > 0, width < 1 << 31, height < 1 << 31 else {
            throw .corrupt(reason: "PNG IHDR has invalid dimensions \(width)x\(height)")
        }
        let validDepths: [Int: [Int]] = [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]]
        guard let depths = validDepths[colorType], depths.contains(bitDepth), interlace <= 1 else {
            throw .corrupt(reason: "PNG IHDR has invalid colour type \(colorType) / bit depth \(bitDepth)")
        }
        var hasAlpha = colorType == 4 || colorType == 6
        var hasICC = false
        var isAnimated = false
        var offset = 33
        while let length = reader.uint32BigEndian(offset), offset + 12 + length <= reader.count {
            if reader.matches("IDAT", at: offset + 4) || reader.matches("IEND", at: offset + 4) { break }
            if reader.matches("tRNS", at: offset + 4) { hasAlpha = true }
            if reader.matches("iCCP", at: offset + 4) { hasICC = true }
            if reader.matches("acTL", at: offset + 4) { isAnimated = true }
            offset += 12 + length
        }
        var probe = ImageProbe(format: .png, width: width, height: height, hasAlpha: hasAlpha, isAnimated: isAnimated,
                               orientation: 1, hasICCProfile: hasICC)
        probe.isInterlaced = interlace == 1
        probe.pngBitsPerPixel = bitDepth * [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][colorType, default: 4]
        probe.pngHasFastPathLayout = PNGRowLayout.reads(colourType: UInt8(colorType), depth: UInt8(bitDepth))
        return probe
    }
}
