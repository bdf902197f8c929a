/// Recognises the published formats from their first bytes (never from a URL or `Content-Type`).
///
/// Used twice: by the fetcher while a body arrives, to pick the byte cap of its kind after `decisiveLength`
/// bytes, and by the pipeline on the whole body, to pass audio and video through. Costs a look at 12 bytes.
package enum AttachmentSniffer {
    /// Bytes needed to tell every format apart (the `ftyp` major brand ends at byte 12).
    package static let decisiveLength = 12

    /// The format whose signature `head` starts with: JPEG (`FF D8 FF`), PNG, GIF (`GIF87a`/`GIF89a`), MP3 (an
    /// ID3v2 tag, or an MPEG audio frame header), WAV (`RIFF....WAVE`), AIFF (`FORM....AIFF` or `AIFC`), and
    /// ISO media by the `ftyp` major brand (`ISOMediaBrands`). nil for anything else, WebP, HEIC and HTML included.
    package static func format(ofFileStartingWith head: [UInt8]) -> AttachmentFormat? {
        func starts(_ text: String) -> Bool { head.starts(with: Array(text.utf8)) }
        func bytes(_ range: Range<Int>, are text: String) -> Bool {
            head.count >= range.upperBound && Array(head[range]) == Array(text.utf8)
        }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts("GIF87a") || starts("GIF89a") { return .gif }
        if starts("RIFF"), bytes(8..<12, are: "WAVE") { return .wav }
        if starts("FORM"), bytes(8..<12, are: "AIFF") || bytes(8..<12, are: "AIFC") { return .aiff }
        if let format = ISOMediaBrands.format(ofFileStartingWith: head) { return format }
        if isID3Tag(head) || isMPEGAudioFrameHeader(head) { return .mp3 }
        return nil
    }

    /// The kind whose byte cap applies to a body starting with `head`: the kind of its format, and `image` for
    /// anything unrecognised (the image pipeline judges those bytes, under the image cap).
    package static func kind(ofFileStartingWith head: [UInt8]) -> AttachmentKind {
        format(ofFileStartingWith: head)?.kind ?? .image
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
