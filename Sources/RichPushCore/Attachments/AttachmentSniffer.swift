import Foundation

/// Recognises every format of the table (`AttachmentFormat.signature`) from its first bytes, never from a URL or
/// `Content-Type`.
///
/// The fetcher sniffs each body once as it arrives: the kind after `decisiveLength` bytes, for its byte cap, and
/// the format from the first `ISOMediaBrands.brandInspectionLength` bytes, which `FetchedMedia.format` carries to
/// the pipeline and the image decoders. Costs a look at those bytes.
package enum AttachmentSniffer {
    /// Bytes needed to tell every kind apart (the `ftyp` major brand ends at byte 12). A QuickTime movie's or a
    /// HEIF file's exact format may need its compatible brands, further on; its kind never does.
    package static let decisiveLength = 12

    /// The format whose signature `head` starts with: ISO media by its `ftyp` brands (`ISOMediaBrands`), then the
    /// other rows of the table in order. nil for anything else (HTML, SVG, BMP, ...).
    package static func format(ofFileStartingWith head: [UInt8]) -> AttachmentFormat? {
        if let format = ISOMediaBrands.format(ofFileStartingWith: head) { return format }
        return AttachmentFormat.allCases.first { $0.signature.matches(head) }
    }

    /// The format of a whole body (or its start), from its first `ISOMediaBrands.brandInspectionLength` bytes.
    package static func format(of bytes: Data) -> AttachmentFormat? {
        format(ofFileStartingWith: [UInt8](bytes.prefix(ISOMediaBrands.brandInspectionLength)))
    }

    /// The kind whose byte cap applies to a body starting with `head`: the kind of its format, and `image` for
    /// anything unrecognised (the image pipeline judges those bytes, under the image cap).
    package static func kind(ofFileStartingWith head: [UInt8]) -> AttachmentKind {
        format(ofFileStartingWith: head)?.kind ?? .image
    }
}
