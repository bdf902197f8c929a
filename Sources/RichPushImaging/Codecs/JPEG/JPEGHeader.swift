import Glibc
/// JPEG marker walk: SOF dimensions, EXIF orientation, ICC presence, and every scan's components.
enum JPEGHeader {
    /// The frame header's facts while the walk goes on.
    private struct Frame {
        var probe: ImageProbe
        var sampling: [ImageProbe.ComponentSampling]
        var componentIDs: [Int]
        var progressive: Bool
        /// Samples of each component, padded to whole blocks (what one scan of it decodes).
        var componentSamples: [Int]
    }

    /// Walks every marker to the end of the image: the frame's size and sampling factors, EXIF orientation, ICC
    /// presence, whether the file has more than one scan (`ImageProbe.isMultiScan`), and the decode work
    /// (`ImageProbe.decodeWork`): each scan decodes every block of its components, so a file's work is the sum over
    /// its scans, known before a single scan is decoded. The entropy-coded data between markers is skipped with
    /// `memchr`, so the walk costs a pass over the bytes, well under a millisecond for a 10 MB file. A file of more
    /// than `ImageLimits.maximumJPEGScans` scans is refused here, before any decoding.
    static func probe(_ reader: ByteReader) throws(ImageError) -> ImageProbe {
        var offset = 2
        var orientation = 1
        var hasICC = false
        var frame: Frame?
        var scans = 0
        var firstScanComponents: Int?
        var work = 0

        func finished() throws(ImageError) -> ImageProbe {
            guard let frame else { throw .corrupt(reason: "JPEG ends before its frame header") }
            var probe = frame.probe
            probe.componentSampling = frame.sampling
            // A first scan with fewer components than the frame means one scan per component (or more).
            probe.isMultiScan = frame.progressive || (firstScanComponents ?? frame.sampling.count) < frame.sampling.count
            probe.scanCount = scans
            probe.decodeWork = work
            return probe
        }

        while true {
            guard let prefix = reader.byte(offset) else { return try finished() }
            guard prefix == 0xFF else {
                if frame != nil { return try finished() }
                throw .corrupt(reason: "JPEG marker expected at byte \(offset)")
            }
            var markerOffset = offset + 1
            while reader.byte(markerOffset) == 0xFF { markerOffset += 1 }   // fill bytes
            guard let marker = reader.byte(markerOffset) else { return try finished() }
            offset = markerOffset + 1
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { continue }
            if marker == 0xD9 {
                guard frame != nil else { throw .corrupt(reason: "JPEG has no frame header before its scan data") }
                return try finished()
            }
            guard let length = reader.uint16BigEndian(offset), length >= 2 else {
                if frame != nil { return try finished() }
                throw .corrupt(reason: "JPEG segment length missing at byte \(offset)")
            }
            let body = offset + 2
            if marker == 0xDA {
                guard let current = frame else { throw .corrupt(reason: "JPEG has no frame header before its scan data") }
                scans += 1
                if scans > ImageLimits.maximumJPEGScans {
                    throw .corrupt(reason: "JPEG has more than \(ImageLimits.maximumJPEGScans) scans")
                }
                let count = reader.byte(body) ?? 0
                if firstScanComponents == nil { firstScanComponents = count }
                for index in 0..<count {
                    guard let id = reader.byte(body + 1 + index * 2) else { break }
                    if let component = current.componentIDs.firstIndex(of: id) { work += current.componentSamples[component] }
                }
                offset = endOfEntropyCodedData(reader, from: offset + length)
                continue
            }
            let isFrame = (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
            if isFrame, frame == nil {
                frame = try readFrame(reader, marker: marker, body: body, orientation: orientation, hasICC: hasICC)
            }
            if marker == 0xE1, frame == nil, reader.matches("Exif\0\0", at: body) {
                orientation = EXIFOrientation.read(reader, tiffStart: body + 6, end: min(reader.count, offset + length))
            }
            if marker == 0xE2, frame == nil, reader.matches("ICC_PROFILE\0", at: body) { hasICC = true }
            offset += length
        }
    }

    /// The frame header (SOF) at `body`: size, components and their sampling, and the kinds we do not render.
    private static func readFrame(
        _ reader: ByteReader, marker: Int, body: Int, orientation: Int, hasICC: Bool
    ) throws(ImageError) -> Frame {
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
        return Frame(
            probe: probe, sampling: sampling,
            componentIDs: (0..<components).map { reader.byte(body + 6 + $0 * 3) ?? -1 },
            progressive: [0xC2, 0xC6, 0xCA, 0xCE].contains(marker),
            componentSamples: blockCounts(width: width, height: height, sampling: sampling).map { $0 * 64 })
    }

    /// The offset of the marker that ends the entropy-coded data starting at `start` (or the end of the bytes):
    /// the first 0xFF followed by neither a stuffed zero, a restart marker nor another fill byte.
    static func endOfEntropyCodedData(_ reader: ByteReader, from start: Int) -> Int {
        guard let base = reader.bytes.baseAddress, start < reader.count else { return reader.count }
        var position = start
        while position < reader.count - 1 {
            guard let found = memchr(base + position, 0xFF, reader.count - 1 - position) else { return reader.count }
            position = base.distance(to: UnsafeRawPointer(found))
            let next = reader.bytes[position + 1]
            if next == 0x00 || (0xD0...0xD7).contains(next) { position += 2 } else if next == 0xFF { position += 1 } else {
                return position
            }
        }
        return reader.count
    }

    /// The bytes of libjpeg's whole-image coefficient arrays (jdcoefct.c, which a progressive or multi-scan file
    /// needs): per component its blocks at full coded size, rounded up to whole MCUs, 64 two-byte coefficients
    /// each. About 3 bytes a pixel for 4:2:0 and 6 for 4:4:4, whatever DCT scale the output is decoded at.
    static func coefficientBytes(width: Int, height: Int, sampling: [ImageProbe.ComponentSampling]) -> Int {
        blockCounts(width: width, height: height, sampling: sampling).reduce(0, +) * 64 * 2
    }

    /// Each component's 8x8 blocks at full coded size, rounded up to whole MCUs, as libjpeg allocates them.
    static func blockCounts(width: Int, height: Int, sampling: [ImageProbe.ComponentSampling]) -> [Int] {
        let maximumHorizontal = sampling.map(\.horizontal).max() ?? 1, maximumVertical = sampling.map(\.vertical).max() ?? 1
        func roundedUp(_ value: Int, _ multiple: Int) -> Int { (value + multiple - 1) / multiple * multiple }
        return sampling.map { factors in
            let blocksWide = (width * factors.horizontal + 8 * maximumHorizontal - 1) / (8 * maximumHorizontal)
            let blocksHigh = (height * factors.vertical + 8 * maximumVertical - 1) / (8 * maximumVertical)
            return roundedUp(blocksWide, factors.horizontal) * roundedUp(blocksHigh, factors.vertical)
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
