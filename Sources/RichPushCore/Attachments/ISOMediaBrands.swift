/// The rules for ISO base media files (`ftyp` box): which format a file's brands make it.
///
/// Each format's own brands are in its row of the table (`AttachmentFormat.signature`); here are only the rules
/// between them. Audio and video go by the major brand alone, because HEIF files list video brands such as `iso8`
/// among their compatible brands; HEIF stills (HEIC, AVIF) may also be named by a codec-neutral brand
/// (`genericHEIF`) and their compatible brands.
package enum ISOMediaBrands {
    /// Brand (four characters, trailing spaces kept) → format, from the table's `fileTypeBrands` signatures.
    package static let formats: [String: AttachmentFormat] = Dictionary(
        AttachmentFormat.allCases.flatMap { format in
            guard case .fileTypeBrands(let brands) = format.signature else { return [(String, AttachmentFormat)]() }
            return brands.map { ($0, format) }
        },
        uniquingKeysWith: { first, _ in first })

    /// Codec-neutral HEIF brands: the file is HEIC or AVIF by its other brands (HEIC when none says AVIF).
    package static let genericHEIF: Set<String> = ["mif1", "msf1", "miaf"]

    /// Bytes that hold the `ftyp` box of any real file, compatible brands included (a few dozen in practice).
    package static let brandInspectionLength = 256

    /// The format of a file whose first bytes are `head`, or nil when it is no `ftyp` box or its brands name none.
    ///
    /// Audio and video need a box of at least 16 bytes (size, type, major brand, minor version) whose major brand
    /// is theirs. A QuickTime major brand (`qt  `) is MP4 when `head` holds the box's compatible brands and one of
    /// them is an MP4 brand (iPhone and editor exports list `isom` or `mp42`): such a file is an MP4 that devices
    /// and OneSignal accept. Without one, it stays `mov`. Otherwise, from 16 bytes on, a HEIC or AVIF major brand
    /// decides; a codec-neutral one (major or compatible) makes it AVIF when a compatible brand says AVIF, and HEIC
    /// when one says HEIC or the major brand is the neutral one. Costs a look at the brands within `head`.
    static func format(ofFileStartingWith head: [UInt8]) -> AttachmentFormat? {
        guard head.count >= 12, Array(head[4..<8]) == Array("ftyp".utf8) else { return nil }
        let size = head[0..<4].reduce(0) { $0 << 8 | Int($1) }
        func brand(at offset: Int) -> String { String(decoding: head[offset..<offset + 4], as: UTF8.self) }
        let major = brand(at: 8)
        let compatible = stride(from: 16, to: min(size, head.count) - 3, by: 4).map(brand(at:))
        if size >= 16, let format = formats[major], format.kind != .image {
            guard format == .mov else { return format }
            return compatible.contains { formats[$0] == .mp4 } ? .mp4 : .mov
        }
        guard head.count >= 16 else { return nil }
        if let format = formats[major], format.kind == .image { return format }
        guard genericHEIF.contains(major) || compatible.contains(where: genericHEIF.contains) else { return nil }
        if compatible.contains(where: { formats[$0] == .avif }) { return .avif }
        if compatible.contains(where: { formats[$0] == .heic }) || genericHEIF.contains(major) { return .heic }
        return nil
    }
}
