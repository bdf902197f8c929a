import RichPushCore
/// The byte cap of one media body, chosen by the kind its first bytes show (`AttachmentSniffer`) while it arrives,
/// and the body's format, which `FetchedMedia.format` carries on so that nothing sniffs the body again.
///
/// Why not one cap: video may be 50 MB, and a single 50 MB cap would let every image URL pull 50 MB into memory.
/// Until `AttachmentSniffer.decisiveLength` bytes have arrived the cap is the largest of the accepted kinds'; then
/// it is the cap of the body's kind (unrecognised bytes count as an image, which the image pipeline judges). So a
/// 60 MB video stops at 50 MB, an image at the image cap, and a kind the request does not accept (audio on a story
/// page) stops at its first bytes. The format may need more of the `ftyp` box than the kind (a QuickTime movie
/// that is also MP4, a HEIF file named by its compatible brands), so the first
/// `ISOMediaBrands.brandInspectionLength` bytes are kept for it. Costs a copy of those 256 bytes; nothing after.
struct SniffedByteCap: Sendable {
    /// The cap of each accepted kind.
    let limits: [AttachmentKind: Int]
    private var head: [UInt8] = []
    /// The kind of the body, once `decisiveLength` bytes (or the whole body) have been seen.
    private(set) var kind: AttachmentKind?

    init(limits: [AttachmentKind: Int]) {
        self.limits = limits
    }

    /// The largest accepted kind's cap: what applies before the kind is known (and to a `Content-Length`).
    var ceiling: Int { limits.values.max() ?? 0 }

    /// The cap that applies now.
    var current: Int { kind.map { limits[$0] ?? 0 } ?? ceiling }

    /// Whether the body's kind is known and not accepted.
    var isRefused: Bool { kind.map { limits[$0] == nil } ?? false }

    /// Looks at the body's next bytes, keeping the first 256; returns true when this call decided the kind.
    mutating func observe(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard head.count < ISOMediaBrands.brandInspectionLength else { return false }
        head.append(contentsOf: bytes.prefix(ISOMediaBrands.brandInspectionLength - head.count))
        guard kind == nil, head.count >= AttachmentSniffer.decisiveLength else { return false }
        kind = AttachmentSniffer.kind(ofFileStartingWith: Array(head.prefix(AttachmentSniffer.decisiveLength)))
        return true
    }

    /// The body has ended: decides the kind from whatever has been seen (a body shorter than `decisiveLength`),
    /// and returns the body's format from its first 256 bytes (nil when the table has none).
    mutating func finish() -> AttachmentFormat? {
        if kind == nil { kind = AttachmentSniffer.kind(ofFileStartingWith: head) }
        return AttachmentSniffer.format(ofFileStartingWith: head)
    }

    /// Forgets the body (a redirect or another response follows).
    mutating func reset() {
        head = []
        kind = nil
    }
}
