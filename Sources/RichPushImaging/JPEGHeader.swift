import RichPushCore
/// JPEG marker walk: SOF dimensions, EXIF orientation, ICC presence.
enum JPEGHeader {
    static func probe(_ reader: ByteReader) throws(ImageError) -> ImageProbe {
        var offset = 2
        var orientation = 1
        var hasICC = false
        while true {
            guard let prefix = reader.byte(offset) else { throw .corrupt(reason: "JPEG ends before its frame header") }
            guard prefix == 0xFF else { throw .corrupt(reason: "JPEG marker expected at byte \(offset)") }
            var markerOffset = offset + 1
            while reader.byte(markerOffset) == 0xFF { markerOffset += 1 }   // fill bytes
            guard let marker = reader.byte(markerOffset) else { throw .corrupt(reason: "JPEG ends before its frame header") }
            offset = markerOffset + 1
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { continue }
            if marker == 0xD9 || marker == 0xDA { throw .corrupt(reason: "JPEG has no frame header before its scan data") }
            guard let length = reader.uint16BigEndian(offset), length >= 2 else {
                throw .corrupt(reason: "JPEG segment length missing at byte \(offset)")
            }
            let body = offset + 2
            let isFrame = (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
            if isFrame {
                guard let precision = reader.byte(body), let height = reader.uint16BigEndian(body + 1),
                      let width = reader.uint16BigEndian(body + 3), let components = reader.byte(body + 5) else {
                    throw .corrupt(reason: "JPEG frame header truncated")
                }
                if precision != 8 { throw .unsupportedVariant("\(precision)-bit JPEG (only 8-bit is supported)") }
                if marker == 0xC3 || marker == 0xC7 || marker == 0xCB || marker == 0xCF {
                    throw .unsupportedVariant("lossless JPEG")
                }
                if height == 0 { throw .unsupportedVariant("JPEG with height defined by a DNL marker") }
                guard width > 0 else { throw .corrupt(reason: "JPEG frame header has zero width") }
                guard [1, 3, 4].contains(components) else { throw .corrupt(reason: "JPEG has \(components) components") }
                return ImageProbe(format: .jpeg, width: width, height: height, hasAlpha: false, isAnimated: false,
                                  orientation: orientation, hasICCProfile: hasICC)
            }
            if marker == 0xE1, reader.matches("Exif\0\0", at: body) {
                orientation = EXIFOrientation.read(reader, tiffStart: body + 6, end: min(reader.count, offset + length))
            }
            if marker == 0xE2, reader.matches("ICC_PROFILE\0", at: body) { hasICC = true }
            offset += length
        }
    }
}

/// Reads tag 0x0112 from IFD0 of an EXIF TIFF block.
enum EXIFOrientation {
    static func read(_ reader: ByteReader, tiffStart: Int, end: Int) -> Int {
        let littleEndian: Bool
        if reader.matches("II", at: tiffStart) { littleEndian = true }
        else if reader.matches("MM", at: tiffStart) { littleEndian = false }
        else { return 1 }
        func u16(_ at: Int) -> Int? {
            guard at + 2 <= end else { return nil }
            return littleEndian ? reader.uint16LittleEndian(at) : reader.uint16BigEndian(at)
        }
        func u32(_ at: Int) -> Int? {
            guard at + 4 <= end else { return nil }
            return littleEndian ? reader.uint32LittleEndian(at) : reader.uint32BigEndian(at)
        }
        guard u16(tiffStart + 2) == 42, let ifdOffset = u32(tiffStart + 4), ifdOffset < end else { return 1 }
        let ifd = tiffStart + ifdOffset
        guard let entries = u16(ifd) else { return 1 }
        for index in 0..<min(entries, 512) {
            let entry = ifd + 2 + index * 12
            guard let tag = u16(entry) else { return 1 }
            if tag == 0x0112 {
                guard u16(entry + 2) == 3, let value = u16(entry + 8), (1...8).contains(value) else { return 1 }
                return value
            }
        }
        return 1
    }
}
