/// The ISO base media file (`ftyp`) major brands RichPush passes through as audio or video.
///
/// HEIC and AVIF stills use the same `ftyp` box with their own brands (`heic`, `mif1`, `avif`, ...), which the
/// image decoders own: no brand is in both tables, and only the major brand decides, because HEIF files list
/// video brands such as `iso8` among their compatible brands.
package enum ISOMediaBrands {
    /// Major brand (four characters, trailing spaces kept) → published format.
    package static let formats: [String: AttachmentFormat] = [
        "M4A ": .m4a, "M4B ": .m4a,
        "isom": .mp4, "iso2": .mp4, "mp41": .mp4, "mp42": .mp4, "avc1": .mp4,
        "M4V ": .m4v, "M4VH": .m4v, "M4VP": .m4v,
        "qt  ": .mov,
    ]

    /// Bytes that hold the `ftyp` box of any real file, compatible brands included (a few dozen in practice).
    package static let brandInspectionLength = 256

    /// The format of a file whose first bytes are `head`: an `ftyp` box of at least 16 bytes (size, type, major
    /// brand, minor version) whose major brand is in the table; nil otherwise. A QuickTime major brand (`qt  `) is
    /// MP4 when `head` holds the box's compatible brands and one of them is an MP4 brand (iPhone and editor exports
    /// list `isom` or `mp42`): such a file is an MP4 that devices and OneSignal accept. Without one, it stays `mov`.
    static func format(ofFileStartingWith head: [UInt8]) -> AttachmentFormat? {
        guard head.count >= 12, Array(head[4..<8]) == Array("ftyp".utf8) else { return nil }
        let size = head[0..<4].reduce(0) { $0 << 8 | Int($1) }
        guard size >= 16 else { return nil }
        let major = formats[String(decoding: head[8..<12], as: UTF8.self)]
        guard major == .mov else { return major }
        let compatible = stride(from: 16, to: min(size, head.count) - 3, by: 4).map {
            String(decoding: head[$0..<$0 + 4], as: UTF8.self)
        }
        return compatible.contains { formats[$0] == .mp4 } ? .mp4 : .mov
    }
}
