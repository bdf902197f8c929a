/// Where a HEIF item's data is (the `iloc` box): in the file, or in the `meta` box's `idat`. Only the first extent
/// of an item is kept: the probe reads small items (a grid descriptor is 8 or 12 bytes), never coded pictures.
struct HEIFItemLocations {
    /// Item ID → the byte range of its first extent, as (construction method, offset, length).
    private var extents: [Int: (method: Int, offset: Int, length: Int)] = [:]

    /// Walks the `iloc` box (versions 0 to 2). Cost: linear in its size.
    init(_ reader: ByteReader, iloc: HEIFBox) throws(ImageError) {
        let start = iloc.body.lowerBound, end = iloc.body.upperBound
        guard iloc.body.count >= 6, let version = reader.byte(start), version <= 2, let sizes = reader.byte(start + 4),
              let moreSizes = reader.byte(start + 5) else { throw .corrupt(reason: "HEIF iloc box is truncated") }
        let offsetSize = sizes >> 4, lengthSize = sizes & 15, baseOffsetSize = moreSizes >> 4
        let indexSize = version == 0 ? 0 : moreSizes & 15
        let countSize = version < 2 ? 2 : 4
        var offset = start + 6
        guard let count = Self.unsigned(reader, at: offset, size: countSize, end: end) else {
            throw .corrupt(reason: "HEIF iloc box is truncated")
        }
        offset += countSize
        var listed = Set<Int>()
        for _ in 0..<min(count, end - offset) {
            guard let item = Self.unsigned(reader, at: offset, size: countSize, end: end) else {
                throw .corrupt(reason: "HEIF iloc entry is truncated")
            }
            // An item has one location: libheif 1.15 reads the first entry (`HEIFItemTable.singleBoxes`).
            guard listed.insert(item).inserted else { throw .corrupt(reason: "HEIF iloc lists item \(item) twice") }
            offset += countSize
            var method = 0
            if version > 0 {
                guard let field = Self.unsigned(reader, at: offset, size: 2, end: end) else { throw .corrupt(reason: "HEIF iloc entry is truncated") }
                method = field & 15
                offset += 2
            }
            offset += 2   // data_reference_index
            guard let base = Self.unsigned(reader, at: offset, size: baseOffsetSize, end: end),
                  let extentCount = Self.unsigned(reader, at: offset + baseOffsetSize, size: 2, end: end) else {
                throw .corrupt(reason: "HEIF iloc entry is truncated")
            }
            offset += baseOffsetSize + 2
            for extent in 0..<extentCount {
                offset += indexSize
                guard let extentOffset = Self.unsigned(reader, at: offset, size: offsetSize, end: end),
                      let length = Self.unsigned(reader, at: offset + offsetSize, size: lengthSize, end: end) else {
                    throw .corrupt(reason: "HEIF iloc extent is truncated")
                }
                offset += offsetSize + lengthSize
                if extent == 0 { extents[item] = (method, base + extentOffset, length) }
            }
        }
    }

    /// The byte range of `item`'s first extent within the file, or nil when it has none, when it lies outside the
    /// file (or outside `idat`, for construction method 1), or when its length is 0: ISO base media reads that as
    /// "to the end", but libheif 1.15 reads it as no data (and hands dav1d an empty buffer, which leaks).
    func firstExtent(of item: Int, fileSize: Int, itemData: Range<Int>?) -> Range<Int>? {
        guard let extent = extents[item] else { return nil }
        let container: Range<Int>
        switch extent.method {
        case 0: container = 0..<fileSize
        case 1:
            guard let itemData else { return nil }
            container = itemData
        default: return nil
        }
        let (lower, overflow) = container.lowerBound.addingReportingOverflow(extent.offset)
        guard !overflow, lower <= container.upperBound else { return nil }
        guard extent.length > 0, extent.length <= container.upperBound - lower else { return nil }
        return lower..<(lower + extent.length)
    }

    /// A big-endian unsigned field of 0, 2, 4 or 8 bytes (0 bytes reads as 0), within `end`.
    private static func unsigned(_ reader: ByteReader, at offset: Int, size: Int, end: Int) -> Int? {
        guard offset + size <= end else { return nil }
        switch size {
        case 0: return 0
        case 2: return reader.uint16BigEndian(offset)
        case 4: return reader.uint32BigEndian(offset)
        case 8:
            guard let high = reader.uint32BigEndian(offset), let low = reader.uint32BigEndian(offset + 4), high < 1 << 30 else { return nil }
            return high << 32 | low
        default: return nil
        }
    }
}
