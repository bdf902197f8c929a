import RichPushCore
/// The byte cap of one media body, chosen by the kind its first bytes show (`AttachmentSniffer`) while it arrives.
///
/// Why not one cap: video may be 50 MB, and a single 50 MB cap would let every image URL pull 50 MB into memory.
/// Until `AttachmentSniffer.decisiveLength` bytes have arrived the cap is the largest of the accepted kinds'; then
/// it is the cap of the body's kind (unrecognised bytes count as an image, which the image pipeline judges). So a
/// 60 MB video stops at 50 MB, an image at the image cap, and a kind the request does not accept (audio on a story
/// page) stops at its first bytes. Costs a copy of the first 12 bytes; nothing after the kind is known.
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

    /// Looks at the body's next bytes until the kind is known; returns true when this call decided it.
    mutating func observe(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard kind == nil else { return false }
        head.append(contentsOf: bytes.prefix(AttachmentSniffer.decisiveLength - head.count))
        guard head.count >= AttachmentSniffer.decisiveLength else { return false }
        decide()
        return true
    }

    /// Decides the kind from whatever has been seen (a body shorter than `decisiveLength` has ended).
    mutating func decide() {
        guard kind == nil else { return }
        kind = AttachmentSniffer.kind(ofFileStartingWith: head)
        head = []
    }

    /// Forgets the body (a redirect or another response follows).
    mutating func reset() {
        head = []
        kind = nil
    }
}
