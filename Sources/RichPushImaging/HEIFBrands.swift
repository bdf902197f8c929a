/// The `ftyp` brands that make an ISO base media file a HEIF still image RichPush decodes.
enum HEIFBrands {
    /// HEVC-coded HEIF (HEIC): single images, and HEVC extensions whose base layer libheif decodes.
    static let heic: Set<String> = ["heic", "heix", "heim", "heis"]
    /// AV1-coded HEIF (AVIF), still or sequence (a sequence's still primary image is used).
    static let avif: Set<String> = ["avif", "avis"]
    /// Codec-neutral HEIF brands: the file is HEIC or AVIF by its other brands (HEIC when none says AVIF).
    static let generic: Set<String> = ["mif1", "msf1", "miaf"]

    /// HEIC or AVIF from the `ftyp` box at the start of `head`, or nil when it is not one.
    /// Cost: reads the brands within `head` only (the major brand and up to the first 256 bytes of compatible ones).
    static func format(ofFileStartingWith head: [UInt8]) -> ImageFormat? {
        guard head.count >= 16, Array(head[4..<8]) == Array("ftyp".utf8) else { return nil }
        let size = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
        let major = brand(head, at: 8)
        let compatible = stride(from: 16, to: min(size, head.count) - 3, by: 4).map { brand(head, at: $0) }
        if avif.contains(major) { return .avif }
        if heic.contains(major) { return .heic }
        guard generic.contains(major) || compatible.contains(where: { generic.contains($0) }) else { return nil }
        if compatible.contains(where: { avif.contains($0) }) { return .avif }
        if compatible.contains(where: { heic.contains($0) }) || generic.contains(major) { return .heic }
        return nil
    }

    private static func brand(_ head: [UInt8], at offset: Int) -> String {
        String(decoding: head[offset..<(offset + 4)], as: UTF8.self)
    }
}
