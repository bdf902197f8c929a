/// One ISO base media box: its four-character type and the byte range of its contents (after the header).
struct HEIFBox {
    var type: String
    var body: Range<Int>

    /// At most this many boxes are read from one parent: a real HEIF has a few dozen.
    static let maximumChildren = 100_000

    /// The boxes inside `range`, in order. A box running past its parent, or a size below its header, is corrupt.
    static func children(of range: Range<Int>, in reader: ByteReader) throws(ImageError) -> [HEIFBox] {
        var boxes: [HEIFBox] = []
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound {
            guard boxes.count < maximumChildren else { throw .corrupt(reason: "HEIF box has too many children") }
            guard let size32 = reader.uint32BigEndian(offset) else { throw .corrupt(reason: "HEIF box header truncated") }
            let type = String(decoding: (0..<4).map { UInt8(reader.byte(offset + 4 + $0) ?? 0) }, as: UTF8.self)
            var header = 8, size = size32
            if size32 == 1 {
                guard let high = reader.uint32BigEndian(offset + 8), let low = reader.uint32BigEndian(offset + 12),
                      high < 1 << 30 else { throw .corrupt(reason: "HEIF box '\(type)' has an invalid 64-bit size") }
                (header, size) = (16, high << 32 | low)
            } else if size32 == 0 {
                size = range.upperBound - offset
            }
            guard size >= header, size <= range.upperBound - offset else {
                throw .corrupt(reason: "HEIF box '\(type)' at byte \(offset) runs past its container")
            }
            boxes.append(HEIFBox(type: type, body: (offset + header)..<(offset + size)))
            offset += size
        }
        return boxes
    }

    /// Throws `corrupt` when `boxes`, the children of `parent` (nil for the file itself), hold more than one box of
    /// any type in `types`: libheif 1.15 reads only one of each (`HEIFItemTable.singleBoxes`), so the header checks
    /// must see that one alone.
    static func requireAtMostOne(of types: Set<String>, among boxes: [HEIFBox], in parent: String?) throws(ImageError) {
        var counts: [String: Int] = [:]
        for box in boxes where types.contains(box.type) { counts[box.type, default: 0] += 1 }
        if let (type, count) = counts.filter({ $0.value > 1 }).min(by: { $0.key < $1.key }) {
            let place = parent.map { "HEIF \($0) box has" } ?? "HEIF has"
            throw .corrupt(reason: "\(place) \(count) \(type) boxes, where one is allowed")
        }
    }
}
