/// The picture size an image item's coded data declares: HEVC's sequence parameter sets (in `hvcC` and in the
/// item's data) and AV1's sequence headers (in `av1C` and in the item's data). libheif hands the configuration's
/// parameter sets and then the item's data to the decoder, which allocates what they say whatever the `ispe`
/// box claims, so the header walk compares the two before anything is decoded.
struct HEIFCodedSize: Equatable {
    /// The picture the decoder allocates.
    var width: Int
    var height: Int
    /// The size it outputs: HEVC's conformance window applied (AV1 has none, so the same).
    var croppedWidth: Int
    var croppedHeight: Int

    /// At most this many NAL units or OBUs are read from the items of one file (`units` counts them): a still
    /// picture has a few per tile (parameter sets, one slice or tile group), 3,000 for 1024 tiles, and each is a
    /// header read, so the walk stays cheap whatever the file holds.
    static let maximumUnits = 16_384
    /// The bytes of a parameter set that are read: the sizes come within the first hundred (after at most seven
    /// sub-layers' profiles), so a long one costs no more than a short one.
    static let parameterSetPrefix = 512

    var pixels: Int { width * height }

    /// Whether the coded picture agrees with an `ispe` of `width`x`height`.
    ///
    /// Why these tolerances: HEVC codes whole minimum coding blocks (8 to 64 pixels) and crops the rest with its
    /// conformance window; heif-enc's tiles (Fixtures/imaging) and iPhones write an `ispe` equal to the cropped
    /// size, and a writer that puts the padded size in `ispe` is still truthful. Either is accepted, but the
    /// padding itself may not exceed one 64-pixel block, so a huge picture cannot hide behind a crop. AV1's
    /// sequence header states the frame size itself with no padding (every AVIF in Fixtures matches its `ispe`
    /// exactly); a frame is never larger than it, and 8 pixels of slack allow an encoder that rounds up to its
    /// block size.
    func agrees(withWidth ispeWidth: Int, height ispeHeight: Int, isAV1: Bool) -> Bool {
        func roundedUp(_ value: Int, to multiple: Int) -> Int { (value + multiple - 1) / multiple * multiple }
        let block = isAV1 ? 8 : 64
        guard width <= roundedUp(ispeWidth, to: block), height <= roundedUp(ispeHeight, to: block) else { return false }
        // The smallest truthful ispe: HEVC's cropped picture; an AV1 frame may be anything up to the sequence's size.
        let smallest = isAV1 ? (width: 1, height: 1) : (width: croppedWidth, height: croppedHeight)
        return (smallest.width...width).contains(ispeWidth) && (smallest.height...height).contains(ispeHeight)
    }

    // MARK: HEVC

    /// Every SPS in an `hvcC` box's NAL arrays and in the item's length-prefixed NAL units. Corrupt when there is
    /// none (an `hvc1` item must carry its parameter sets in `hvcC`), when one does not parse, or when the data
    /// holds more than `maximumUnits` NAL units.
    static func hevc(configuration hvcC: Range<Int>, data: Range<Int>?, in reader: ByteReader,
                     units: inout Int) throws(ImageError) -> [HEIFCodedSize] {
        let start = hvcC.lowerBound
        guard hvcC.count >= 23, let lengthByte = reader.byte(start + 21), let arrayCount = reader.byte(start + 22) else {
            throw .corrupt(reason: "HEIF hvcC box is truncated")
        }
        var sizes: [HEIFCodedSize] = []
        var offset = start + 23
        for _ in 0..<arrayCount {
            guard offset + 3 <= hvcC.upperBound, let type = reader.byte(offset), let count = reader.uint16BigEndian(offset + 1) else {
                throw .corrupt(reason: "HEIF hvcC NAL array is truncated")
            }
            offset += 3
            for _ in 0..<count {
                units += 1
                guard units <= maximumUnits else { throw .corrupt(reason: "HEIF items hold more than \(maximumUnits) NAL units") }
                guard offset + 2 <= hvcC.upperBound, let length = reader.uint16BigEndian(offset),
                      offset + 2 + length <= hvcC.upperBound else {
                    throw .corrupt(reason: "HEIF hvcC NAL unit is truncated")
                }
                if type & 0x3F == 33 { sizes.append(try sequenceParameterSet(reader, offset + 2..<offset + 2 + length)) }
                offset += 2 + length
            }
        }
        guard !sizes.isEmpty else { throw .corrupt(reason: "HEIF hvcC box has no sequence parameter set") }
        guard let data else { return sizes }
        // The item's NAL units, each after a big-endian length of 1, 2 or 4 bytes (hvcC's lengthSizeMinusOne).
        let lengthSize = lengthByte & 3 + 1
        guard lengthSize != 3 else { throw .corrupt(reason: "HEIF hvcC has a 3-byte NAL length size") }
        offset = data.lowerBound
        while offset + lengthSize <= data.upperBound {
            units += 1
            guard units <= maximumUnits else { throw .corrupt(reason: "HEIF items hold more than \(maximumUnits) NAL units") }
            var length = 0
            for index in 0..<lengthSize { length = length << 8 | (reader.byte(offset + index) ?? 0) }
            let unit = offset + lengthSize
            guard length <= data.upperBound - unit else { break }   // The decoder reports a truncated unit itself.
            if length >= 2, let header = reader.byte(unit), header >> 1 & 0x3F == 33 {
                sizes.append(try sequenceParameterSet(reader, unit..<unit + length))
            }
            offset = unit + length
        }
        return sizes
    }

    /// pic_width_in_luma_samples and pic_height_in_luma_samples of an SPS NAL unit, and its conformance window
    /// (H.265 7.3.2.2; the window's offsets count chroma samples, hence SubWidthC and SubHeightC).
    private static func sequenceParameterSet(_ reader: ByteReader, _ unit: Range<Int>) throws(ImageError) -> HEIFCodedSize {
        var bits = HEIFBitReader.unescapingNAL(unit.prefix(parameterSetPrefix).map { UInt8(reader.byte($0) ?? 0) })
        guard let parsed = parseSequenceParameterSet(&bits) else {
            throw .corrupt(reason: "HEIF HEVC sequence parameter set does not parse")
        }
        return parsed
    }

    static func parseSequenceParameterSet(_ bits: inout HEIFBitReader) -> HEIFCodedSize? {
        // NAL header (16 bits), sps_video_parameter_set_id (4), sps_max_sub_layers_minus1 (3), nesting flag (1).
        guard bits.skip(16 + 4), let subLayers = bits.bits(3), bits.skip(1) else { return nil }
        // profile_tier_level(1, sps_max_sub_layers_minus1): the general profile and level (96 bits), then the
        // sub-layers' present flags, padded to eight entries, then the profiles and levels they announce.
        guard bits.skip(96) else { return nil }
        var present: [(profile: Bool, level: Bool)] = []
        for _ in 0..<subLayers {
            guard let profile = bits.bits(1), let level = bits.bits(1) else { return nil }
            present.append((profile == 1, level == 1))
        }
        if subLayers > 0 { guard bits.skip(2 * (8 - subLayers)) else { return nil } }
        for layer in present {
            guard bits.skip((layer.profile ? 88 : 0) + (layer.level ? 8 : 0)) else { return nil }
        }
        guard bits.unsignedExpGolomb() != nil, let chromaFormat = bits.unsignedExpGolomb(), chromaFormat <= 3 else { return nil }
        var separatePlanes = 0
        if chromaFormat == 3 { guard let flag = bits.bits(1) else { return nil }; separatePlanes = flag }
        guard let width = bits.unsignedExpGolomb(), let height = bits.unsignedExpGolomb(), width > 0, height > 0,
              let windowFlag = bits.bits(1) else { return nil }
        var size = HEIFCodedSize(width: width, height: height, croppedWidth: width, croppedHeight: height)
        if windowFlag == 1 {
            guard let left = bits.unsignedExpGolomb(), let right = bits.unsignedExpGolomb(),
                  let top = bits.unsignedExpGolomb(), let bottom = bits.unsignedExpGolomb() else { return nil }
            let chromaArrayType = separatePlanes == 1 ? 0 : chromaFormat
            let subWidth = chromaArrayType == 1 || chromaArrayType == 2 ? 2 : 1
            let subHeight = chromaArrayType == 1 ? 2 : 1
            size.croppedWidth = width - subWidth * (left + right)
            size.croppedHeight = height - subHeight * (top + bottom)
            guard size.croppedWidth > 0, size.croppedHeight > 0 else { return nil }
        }
        return size
    }

    // MARK: AV1

    /// Every sequence header OBU in an `av1C` box's configOBUs and in the item's data. Corrupt when there is none
    /// (dav1d cannot decode without one), when one does not parse, or past `maximumUnits` OBUs.
    static func av1(configuration av1C: Range<Int>, data: Range<Int>?, in reader: ByteReader,
                    units: inout Int) throws(ImageError) -> [HEIFCodedSize] {
        guard av1C.count >= 4 else { throw .corrupt(reason: "HEIF av1C box is truncated") }
        var sizes = try sequenceHeaders(in: (av1C.lowerBound + 4)..<av1C.upperBound, reader: reader, units: &units)
        if let data { sizes += try sequenceHeaders(in: data, reader: reader, units: &units) }
        guard !sizes.isEmpty else { throw .corrupt(reason: "HEIF AV1 item has no sequence header") }
        return sizes
    }

    /// Walks the OBUs in `range` (AV1 5.3: a header byte, an optional extension byte, a leb128 size when
    /// obu_has_size_field is set, else the OBU runs to the end) and parses each sequence header (type 1).
    private static func sequenceHeaders(in range: Range<Int>, reader: ByteReader, units: inout Int) throws(ImageError) -> [HEIFCodedSize] {
        var sizes: [HEIFCodedSize] = []
        var offset = range.lowerBound
        while offset < range.upperBound {
            units += 1
            guard units <= maximumUnits else { throw .corrupt(reason: "HEIF items hold more than \(maximumUnits) OBUs") }
            // The OBU header and its size field fit in 10 bytes.
            let window = offset..<min(range.upperBound, offset + 10)
            var header = HEIFBitReader(window.map { UInt8(reader.byte($0) ?? 0) })
            guard let first = header.bits(8) else { break }
            let type = first >> 3 & 15, hasExtension = first >> 2 & 1 == 1, hasSize = first >> 1 & 1 == 1
            if hasExtension { _ = header.skip(8) }
            var payloadSize = range.upperBound - offset - header.byteOffset
            if hasSize {
                guard let size = header.leb128() else { throw .corrupt(reason: "HEIF AV1 OBU size is truncated") }
                payloadSize = size
            }
            let payload = offset + header.byteOffset
            guard payloadSize >= 0, payloadSize <= range.upperBound - payload else { break }   // dav1d reports it.
            if type == 1 {
                var bits = HEIFBitReader((payload..<min(payload + payloadSize, payload + parameterSetPrefix)).map { UInt8(reader.byte($0) ?? 0) })
                guard let size = parseSequenceHeader(&bits) else { throw .corrupt(reason: "HEIF AV1 sequence header does not parse") }
                sizes.append(size)
            }
            offset = payload + payloadSize
        }
        return sizes
    }

    /// max_frame_width_minus_1 and max_frame_height_minus_1 of a sequence header OBU's payload (AV1 5.5.1): every
    /// frame of the sequence is at most that size.
    static func parseSequenceHeader(_ bits: inout HEIFBitReader) -> HEIFCodedSize? {
        guard bits.skip(4), let reduced = bits.bits(1) else { return nil }   // seq_profile, still_picture
        if reduced == 1 {
            guard bits.skip(5) else { return nil }
        } else {
            guard let timingInfo = bits.bits(1) else { return nil }
            var decoderModel = 0, bufferDelayLength = 0
            if timingInfo == 1 {
                guard bits.skip(64), let equalInterval = bits.bits(1) else { return nil }
                if equalInterval == 1 { guard bits.unsignedExpGolomb() != nil else { return nil } }
                guard let model = bits.bits(1) else { return nil }
                decoderModel = model
                if model == 1 {
                    guard let length = bits.bits(5), bits.skip(32 + 5 + 5) else { return nil }
                    bufferDelayLength = length + 1
                }
            }
            guard let displayDelay = bits.bits(1), let operatingPoints = bits.bits(5) else { return nil }
            for _ in 0...operatingPoints {
                guard bits.skip(12), let level = bits.bits(5) else { return nil }
                if level > 7 { guard bits.skip(1) else { return nil } }
                if decoderModel == 1 {
                    guard let present = bits.bits(1) else { return nil }
                    if present == 1 { guard bits.skip(2 * bufferDelayLength + 1) else { return nil } }
                }
                if displayDelay == 1 {
                    guard let present = bits.bits(1) else { return nil }
                    if present == 1 { guard bits.skip(4) else { return nil } }
                }
            }
        }
        guard let widthBits = bits.bits(4), let heightBits = bits.bits(4),
              let width = bits.bits(widthBits + 1), let height = bits.bits(heightBits + 1) else { return nil }
        return HEIFCodedSize(width: width + 1, height: height + 1, croppedWidth: width + 1, croppedHeight: height + 1)
    }
}
