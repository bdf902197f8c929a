/// What a HEIF `meta` box says about its items: the primary item, each item's type, its properties and the
/// references between items. Built by one walk over the `meta` box; the pixel data (`mdat`, `idat`) is never read.
struct HEIFItemTable {
    /// URNs of an `auxC` property that make an auxiliary image an alpha plane (AVIF's, then HEVC's).
    static let alphaURNs: Set<String> = ["urn:mpeg:mpegB:cicp:systems:auxiliary:alpha", "urn:mpeg:hevc:2015:auxid:1"]
    /// At most this many item references are read: a real file has a few per tile.
    static let maximumReferences = 100_000

    let reader: ByteReader
    private(set) var primary: Int?
    /// Item ID → item type (`hvc1`, `av01`, `grid`, `Exif`...).
    private(set) var types: [Int: String] = [:]
    /// The `ipco` boxes; associations index them from 1.
    private var propertyBoxes: [HEIFBox] = []
    /// Item ID → its property indexes, in association order.
    private var associations: [Int: [Int]] = [:]
    /// Reference type → from item → to items, in order.
    private var itemReferences: [String: [Int: [Int]]] = [:]
    private var locations: HEIFItemLocations?
    /// The contents of the `idat` box (item data stored inside `meta`, such as grid descriptors).
    private var itemData: Range<Int>?

    /// The boxes a `meta` box holds at most one of. libheif 1.15 reads the first of each, and of `ipco` in `iprp`,
    /// so a second one would let this walk check what libheif never decodes: it is corrupt. So is an item listed
    /// twice in `iinf`, `ipma` or `iloc`, for the same reason (libheif takes the first entry; heif fuzzing found a
    /// second `iloc` entry that hid an empty one from these checks).
    static let singleBoxes: Set<String> = ["hdlr", "pitm", "iinf", "iprp", "iref", "iloc", "idat"]

    /// Walks `meta` (the contents of a full box). Cost: linear in the size of the `meta` box.
    init(_ reader: ByteReader, meta: Range<Int>) throws(ImageError) {
        self.reader = reader
        guard meta.count >= 4 else { throw .corrupt(reason: "HEIF meta box is truncated") }
        let children = try HEIFBox.children(of: (meta.lowerBound + 4)..<meta.upperBound, in: reader)
        try HEIFBox.requireAtMostOne(of: Self.singleBoxes, among: children, in: "meta")
        for box in children {
            switch box.type {
            case "hdlr":
                guard box.body.count >= 12, reader.matches("pict", at: box.body.lowerBound + 8) else {
                    throw .unsupportedFormat(detected: "HEIF without a picture handler")
                }
            case "pitm": primary = fullBoxID(box, at: 4)
            case "iinf": try readItemInfo(box)
            case "iprp":
                let properties = try HEIFBox.children(of: box.body, in: reader)
                try HEIFBox.requireAtMostOne(of: ["ipco"], among: properties, in: "iprp")
                for child in properties {
                    if child.type == "ipco" { propertyBoxes = try HEIFBox.children(of: child.body, in: reader) }
                    if child.type == "ipma" { try readAssociations(child) }
                }
            case "iref": try readReferences(box)
            case "iloc": locations = try HEIFItemLocations(reader, iloc: box)
            case "idat": itemData = box.body
            default: break
            }
        }
        // libheif 1.15 sizes an image by its last ispe, where `imageSize` reads the first.
        for item in associations.keys.sorted() {
            let sizes = properties(of: item).count { $0.type == "ispe" }
            guard sizes <= 1 else { throw .corrupt(reason: "HEIF item \(item) has \(sizes) ispe properties, where one is allowed") }
        }
    }

    /// The properties associated with `item`, in order.
    func properties(of item: Int) -> [HEIFBox] {
        (associations[item] ?? []).compactMap { index in
            index >= 1 && index <= propertyBoxes.count ? propertyBoxes[index - 1] : nil
        }
    }

    /// The item's `ispe` width and height (its coded size, before any transformation).
    func imageSize(_ item: Int) -> (width: Int, height: Int)? {
        guard let ispe = properties(of: item).first(where: { $0.type == "ispe" }),
              let width = reader.uint32BigEndian(ispe.body.lowerBound + 4),
              let height = reader.uint32BigEndian(ispe.body.lowerBound + 8), ispe.body.count >= 12 else { return nil }
        return (width, height)
    }

    /// A `grid` item's descriptor: its tile rows and columns and the canvas size libheif allocates for it (which
    /// its `ispe` need not agree with).
    func gridLayout(of item: Int) throws(ImageError) -> (rows: Int, columns: Int, width: Int, height: Int) {
        guard let range = locations?.firstExtent(of: item, fileSize: reader.count, itemData: itemData), range.count >= 8,
              reader.byte(range.lowerBound) == 0, let flags = reader.byte(range.lowerBound + 1),
              let rowsMinusOne = reader.byte(range.lowerBound + 2), let columnsMinusOne = reader.byte(range.lowerBound + 3) else {
            throw .corrupt(reason: "HEIF grid item \(item) has no readable grid descriptor")
        }
        let start = range.lowerBound
        let size: (Int, Int)?
        if flags & 1 == 1 {
            size = range.count >= 12 ? reader.uint32BigEndian(start + 4).flatMap { w in reader.uint32BigEndian(start + 8).map { (w, $0) } } : nil
        } else {
            size = reader.uint16BigEndian(start + 4).flatMap { w in reader.uint16BigEndian(start + 6).map { (w, $0) } }
        }
        guard let (width, height) = size else { throw .corrupt(reason: "HEIF grid descriptor of item \(item) is truncated") }
        return (rowsMinusOne + 1, columnsMinusOne + 1, width, height)
    }

    /// Where `item`'s data to decode starts: its first extent within the file (or `idat`), of at least one byte.
    func dataRange(_ item: Int) -> Range<Int>? {
        locations?.firstExtent(of: item, fileSize: reader.count, itemData: itemData)
    }

    func references(_ type: String, from item: Int) -> [Int] {
        itemReferences[type]?[item] ?? []
    }

    /// The auxiliary item that is `item`'s alpha plane, if any. libheif 1.15 takes the last of several (by item
    /// ID, of those its own size), so with more than one the checks could miss the plane it decodes: corrupt.
    func alphaPlane(of item: Int) throws(ImageError) -> Int? {
        let auxiliaries = itemReferences["auxl"] ?? [:]
        let planes = auxiliaries.keys.sorted().filter { auxiliary in
            auxiliaries[auxiliary]?.contains(item) == true && properties(of: auxiliary).contains { property in
                property.type == "auxC" && Self.alphaURNs.contains(cString(at: property.body.lowerBound + 4, end: property.body.upperBound))
            }
        }
        guard planes.count <= 1 else { throw .corrupt(reason: "HEIF image \(item) has \(planes.count) alpha planes, where one is allowed") }
        return planes.first
    }

    /// The size after a `clap` crop, rounded as libheif rounds the clean aperture's width and height; nil when
    /// the box is malformed (libheif then ignores it too).
    func cleanApertureSize(_ clap: HEIFBox, width: Int, height: Int) -> (width: Int, height: Int)? {
        let start = clap.body.lowerBound
        guard clap.body.count >= 32, let widthNumerator = reader.uint32BigEndian(start),
              let widthDenominator = reader.uint32BigEndian(start + 4), let heightNumerator = reader.uint32BigEndian(start + 8),
              let heightDenominator = reader.uint32BigEndian(start + 12), widthDenominator > 0, heightDenominator > 0 else {
            return nil
        }
        let cropWidth = (widthNumerator + widthDenominator / 2) / widthDenominator
        let cropHeight = (heightNumerator + heightDenominator / 2) / heightDenominator
        return (min(width, max(1, cropWidth)), min(height, max(1, cropHeight)))
    }

    // MARK: walking the boxes

    /// An item ID after a full box's version: 16 bits in version 0, 32 bits after.
    private func fullBoxID(_ box: HEIFBox, at offset: Int) -> Int? {
        let position = box.body.lowerBound + offset
        let wide = reader.byte(box.body.lowerBound) != 0
        guard position + (wide ? 4 : 2) <= box.body.upperBound else { return nil }
        return wide ? reader.uint32BigEndian(position) : reader.uint16BigEndian(position)
    }

    private mutating func readItemInfo(_ box: HEIFBox) throws(ImageError) {
        let entriesStart = box.body.lowerBound + (reader.byte(box.body.lowerBound) == 0 ? 6 : 8)
        guard entriesStart <= box.body.upperBound else { throw .corrupt(reason: "HEIF iinf box is truncated") }
        for entry in try HEIFBox.children(of: entriesStart..<box.body.upperBound, in: reader) where entry.type == "infe" {
            // Versions 2 and 3 carry the item type: ID (16 or 32 bits), protection index (16), type (4 bytes).
            let start = entry.body.lowerBound
            guard let version = reader.byte(start), version >= 2 else { continue }
            let idBytes = version == 2 ? 2 : 4
            guard let item = idBytes == 2 ? reader.uint16BigEndian(start + 4) : reader.uint32BigEndian(start + 4),
                  start + 4 + idBytes + 6 <= entry.body.upperBound else {
                throw .corrupt(reason: "HEIF infe box is truncated")
            }
            guard types[item] == nil else { throw .corrupt(reason: "HEIF iinf lists item \(item) twice") }
            types[item] = String(decoding: (0..<4).map { UInt8(reader.byte(start + 4 + idBytes + 2 + $0) ?? 0) }, as: UTF8.self)
        }
    }

    private mutating func readAssociations(_ box: HEIFBox) throws(ImageError) {
        let start = box.body.lowerBound, end = box.body.upperBound
        guard box.body.count >= 8, let version = reader.byte(start), let flags = reader.byte(start + 3),
              let count = reader.uint32BigEndian(start + 4) else {
            throw .corrupt(reason: "HEIF ipma box is truncated")
        }
        let idBytes = version < 1 ? 2 : 4, indexBytes = flags & 1 == 1 ? 2 : 1
        var offset = start + 8
        for _ in 0..<min(count, end - offset) {
            guard offset + idBytes + 1 <= end,
                  let item = idBytes == 2 ? reader.uint16BigEndian(offset) : reader.uint32BigEndian(offset),
                  let associationCount = reader.byte(offset + idBytes) else { throw .corrupt(reason: "HEIF ipma entry is truncated") }
            offset += idBytes + 1
            guard offset + associationCount * indexBytes <= end else { throw .corrupt(reason: "HEIF ipma entry is truncated") }
            var indexes: [Int] = []
            for index in 0..<associationCount {
                let position = offset + index * indexBytes
                let value = indexBytes == 2 ? (reader.uint16BigEndian(position) ?? 0) & 0x7FFF : (reader.byte(position) ?? 0) & 0x7F
                indexes.append(value)
            }
            // Several ipma boxes may share the items between them (libheif joins them), but not an item.
            guard associations[item] == nil else { throw .corrupt(reason: "HEIF ipma lists item \(item) twice") }
            associations[item] = indexes
            offset += associationCount * indexBytes
        }
    }

    private mutating func readReferences(_ box: HEIFBox) throws(ImageError) {
        guard let version = reader.byte(box.body.lowerBound), box.body.count >= 4 else { throw .corrupt(reason: "HEIF iref box is truncated") }
        let idBytes = version == 0 ? 2 : 4
        var total = 0
        for reference in try HEIFBox.children(of: (box.body.lowerBound + 4)..<box.body.upperBound, in: reader) {
            let start = reference.body.lowerBound
            guard let from = idBytes == 2 ? reader.uint16BigEndian(start) : reader.uint32BigEndian(start),
                  let count = reader.uint16BigEndian(start + idBytes),
                  start + idBytes + 2 + count * idBytes <= reference.body.upperBound else {
                throw .corrupt(reason: "HEIF '\(reference.type)' reference is truncated")
            }
            total += count
            guard total <= Self.maximumReferences else { throw .corrupt(reason: "HEIF has more than \(Self.maximumReferences) item references") }
            let targets = (0..<count).compactMap { index in
                let position = start + idBytes + 2 + index * idBytes
                return idBytes == 2 ? reader.uint16BigEndian(position) : reader.uint32BigEndian(position)
            }
            itemReferences[reference.type, default: [:]][from, default: []] += targets
        }
    }

    /// A NUL-terminated string starting at `offset`, read no further than `end`.
    private func cString(at offset: Int, end: Int) -> String {
        var bytes: [UInt8] = []
        var position = offset
        while position < end, let byte = reader.byte(position), byte != 0 {
            bytes.append(UInt8(byte))
            position += 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
