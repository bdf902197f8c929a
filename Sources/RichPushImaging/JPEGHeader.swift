/// JPEG marker walk: SOF dimensions, EXIF orientation, ICC presence.
enum JPEGHeader {
    /// Walks the markers to the first SOS: the frame's size and sampling factors, EXIF orientation, ICC presence, and
    /// whether the file has more than one scan (`ImageProbe.isMultiScan`).
    static func probe(_ reader: ByteReader) throws(ImageError) -> ImageProbe {
        var offset = 2
        var orientation = 1
        var hasICC = false
        var frame: (probe: ImageProbe, sampling: [ImageProbe.ComponentSampling], progressive: Bool)?
        while true {
            guard let prefix = reader.byte(offset) else {
                if let frame { return finished(frame.probe, sampling: frame.sampling, multiScan: frame.progressive) }
                throw .corrupt(reason: "JPEG ends before its frame header")
            }
            guard prefix == 0xFF else {
                if let frame { return finished(frame.probe, sampling: frame.sampling, multiScan: frame.progressive) }
                throw .corrupt(reason: "JPEG marker expected at byte \(offset)")
            }
            var markerOffset = offset + 1
            while reader.byte(markerOffset) == 0xFF { markerOffset += 1 }   // fill bytes
            guard let marker = reader.byte(markerOffset) else {
                if let frame { return finished(frame.probe, sampling: frame.sampling, multiScan: frame.progressive) }
                throw .corrupt(reason: "JPEG ends before its frame header")
            }
            offset = markerOffset + 1
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { continue }
            if marker == 0xD9 || marker == 0xDA {
                guard let frame else { throw .corrupt(reason: "JPEG has no frame header before its scan data") }
                // A first scan with fewer components than the frame means one scan per component (or more).
                let scanComponents = marker == 0xDA ? reader.byte(offset + 2) ?? 0 : 0
                return finished(frame.probe, sampling: frame.sampling,
                                multiScan: frame.progressive || scanComponents < frame.sampling.count)
            }
            guard let length = reader.uint16BigEndian(offset), length >= 2 else {
                if let frame { return finished(frame.probe, sampling: frame.sampling, multiScan: frame.progressive) }
                throw .corrupt(reason: "JPEG segment length missing at byte \(offset)")
            }
            let body = offset + 2
            let isFrame = (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
            if isFrame, frame == nil {
                guard let precision = reader.byte(body), let height = reader.uint16BigEndian(body + 1),
                      let width = reader.uint16BigEndian(body + 3), let components = reader.byte(body + 5) else {
                    throw .corrupt(reason: "JPEG frame header truncated")
                }
                if precision != 8 { throw .unsupportedFormat(detected: "\(precision)-bit JPEG (only 8-bit is supported)") }
                if marker == 0xC3 || marker == 0xC7 || marker == 0xCB || marker == 0xCF {
                    throw .unsupportedFormat(detected: "lossless JPEG")
                }
                if height == 0 { throw .unsupportedFormat(detected: "JPEG with its height in a DNL marker") }
                guard width > 0 else { throw .corrupt(reason: "JPEG frame header has zero width") }
                guard [1, 3, 4].contains(components) else { throw .corrupt(reason: "JPEG has \(components) components") }
                let sampling = (0..<components).map { index in
                    let factors = reader.byte(body + 7 + index * 3) ?? 0x11
                    return ImageProbe.ComponentSampling(horizontal: max(1, factors >> 4), vertical: max(1, factors & 0x0F))
                }
                let probe = ImageProbe(format: .jpeg, width: width, height: height, hasAlpha: false, isAnimated: false,
                                       orientation: orientation, hasICCProfile: hasICC)
                frame = (probe, sampling, [0xC2, 0xC6, 0xCA, 0xCE].contains(marker))
            }
            if marker == 0xE1, frame == nil, reader.matches("Exif\0\0", at: body) {
                orientation = EXIFOrientation.read(reader, tiffStart: body + 6, end: min(reader.count, offset + length))
            }
            if marker == 0xE2, frame == nil, reader.matches("ICC_PROFILE\0", at: body) { hasICC = true }
            offset += length
        }
    }

    private static func finished(_ probe: ImageProbe, sampling: [ImageProbe.ComponentSampling], multiScan: Bool) -> ImageProbe {
        var probe = probe
        probe.componentSampling = sampling
        probe.isMultiScan = multiScan
        return probe
    }

    /// The bytes of libjpeg's whole-image coefficient arrays (jdcoefct.c, which a progressive or multi-scan file
    /// needs): per component its blocks at full coded size, rounded up to whole MCUs, 64 two-byte coefficients
    /// each. About 3 bytes a pixel for 4:2:0 and 6 for 4:4:4, whatever DCT scale the output is decoded at.
    static func coefficientBytes(width: Int, height: Int, sampling: [ImageProbe.ComponentSampling]) -> Int {
        let maximumHorizontal = sampling.map(\.horizontal).max() ?? 1, maximumVertical = sampling.map(\.vertical).max() ?? 1
        func roundedUp(_ value: Int, _ multiple: Int) -> Int { (value + multiple - 1) / multiple * multiple }
        return sampling.reduce(0) { total, factors in
            let blocksWide = (width * factors.horizontal + 8 * maximumHorizontal - 1) / (8 * maximumHorizontal)
            let blocksHigh = (height * factors.vertical + 8 * maximumVertical - 1) / (8 * maximumVertical)
            return total + roundedUp(blocksWide, factors.horizontal) * roundedUp(blocksHigh, factors.vertical) * 64 * 2
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
