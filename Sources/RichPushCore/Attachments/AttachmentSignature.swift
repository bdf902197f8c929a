/// How the files of one format start (`AttachmentFormat.signature`): the rules `AttachmentSniffer` applies.
package enum AttachmentSignature: Sendable, Hashable {
    /// The file starts with one of these byte strings.
    case prefix([[UInt8]])
    /// A chunk container: `chunk` (`RIFF`, `FORM`), a 4-byte size, then one of `forms` at bytes 8..<12.
    case chunkContainer(chunk: String, forms: [String])
    /// An ISO base media file whose `ftyp` box names one of these brands (`ISOMediaBrands` has the rules).
    case fileTypeBrands(Set<String>)
    /// An ID3v2 tag, or an MPEG audio frame header.
    case mpegAudio

    /// Whether `head` starts this way. File type brands never match here: the `ftyp` box is read as a whole,
    /// because one brand list decides between several formats (`ISOMediaBrands.format(ofFileStartingWith:)`).
    package func matches(_ head: [UInt8]) -> Bool {
        switch self {
        case .prefix(let prefixes):
            return prefixes.contains { head.starts(with: $0) }
        case .chunkContainer(let chunk, let forms):
            guard head.count >= 12, head.starts(with: Array(chunk.utf8)) else { return false }
            return forms.contains { Array(head[8..<12]) == Array($0.utf8) }
        case .fileTypeBrands:
            return false
        case .mpegAudio:
            return Self.isID3Tag(head) || Self.isMPEGAudioFrameHeader(head)
        }
    }

    /// `ID3`, a major version 2 to 4, a revision below 0xFF, and a syncsafe size (every byte below 0x80).
    private static func isID3Tag(_ head: [UInt8]) -> Bool {
        guard head.count >= 10, head.starts(with: Array("ID3".utf8)) else { return false }
        return (2...4).contains(head[3]) && head[4] != 0xFF && head[6..<10].allSatisfy { $0 < 0x80 }
    }

    /// An 11-bit frame sync with a valid version, a layer (not the reserved 00, which ADTS AAC uses), a bitrate
    /// index other than 1111 and a sampling rate other than the reserved 11. JPEG's `FF D8` never matches.
    private static func isMPEGAudioFrameHeader(_ head: [UInt8]) -> Bool {
        guard head.count >= 4, head[0] == 0xFF, head[1] & 0xE0 == 0xE0 else { return false }
        let version = (head[1] >> 3) & 0x3
        let layer = (head[1] >> 1) & 0x3
        let bitrate = head[2] >> 4
        let samplingRate = (head[2] >> 2) & 0x3
        return version != 0x1 && layer != 0x0 && bitrate != 0xF && samplingRate != 0x3
    }
}
