import Foundation
import RichPushCore

/// What bytes the image pipeline does not decode look like, for the `unsupported_format` message. Naming them is
/// not sniffing: the format was already decided (`AttachmentSniffer`) and is not decodable.
enum UnsupportedFormatDescription {
    /// A short name ("HTML", "ISO media (isom)", "unknown (first bytes ...)"). Costs a look at 256 bytes.
    static func describe(_ bytes: Data) -> String {
        let head = [UInt8](bytes.prefix(ISOMediaBrands.brandInspectionLength))
        if head.isEmpty { return "empty" }
        if head.starts(with: Array("BM".utf8)) { return "BMP" }
        if head.starts(with: [0x49, 0x49, 0x2A, 0x00]) || head.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { return "TIFF" }
        if head.starts(with: Array("%PDF".utf8)) { return "PDF" }
        if head.count >= 12, Array(head[4..<8]) == Array("ftyp".utf8) {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            // HEIC and AVIF stills are decodable formats; what is left of their families is sequences.
            if brand.hasPrefix("avi") { return "AVIF" }
            if ["hevc", "hevx"].contains(brand) { return "HEIC image sequence" }
            return "ISO media (\(brand))"
        }
        if head.starts(with: Array("RIFF".utf8)) { return "RIFF (not WebP)" }
        // Text formats: skip a UTF-8 BOM and leading whitespace.
        var text = head
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { text.removeFirst(3) }
        let lowered = String(decoding: text, as: UTF8.self).lowercased()
            .trimmingCharacters(in: .whitespacesAndNewlines)
        if lowered.hasPrefix("<svg") { return "SVG" }
        if lowered.hasPrefix("<?xml") { return lowered.contains("<svg") ? "SVG" : "XML" }
        if lowered.hasPrefix("<!doctype html") || lowered.hasPrefix("<html") || lowered.hasPrefix("<head")
            || lowered.hasPrefix("<!--") || lowered.hasPrefix("<body") {
            return "HTML"
        }
        if lowered.hasPrefix("{") || lowered.hasPrefix("[") { return "JSON" }
        if head.starts(with: [0x00, 0x00, 0x01, 0x00]) { return "ICO" }
        return "unknown (first bytes \(head.prefix(8).map { String(format: "%02x", $0) }.joined()))"
    }
}
