import Foundation

/// Identifies a format from magic bytes only (never from a URL or Content-Type).
enum FormatSniffer {
    static func sniff(_ bytes: Data) throws(ImageError) -> ImageFormat {
        let head = [UInt8](bytes.prefix(256))
        if head.isEmpty { throw .unsupportedFormat(detected: "empty") }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if head.count >= 12, head.starts(with: Array("RIFF".utf8)), Array(head[8..<12]) == Array("WEBP".utf8) { return .webp }
        if head.starts(with: Array("GIF87a".utf8)) || head.starts(with: Array("GIF89a".utf8)) { return .gif }
        if let format = HEIFBrands.format(ofFileStartingWith: head) { return format }
        throw .unsupportedFormat(detected: describeUnsupported(head))
    }

    private static func describeUnsupported(_ head: [UInt8]) -> String {
        if head.starts(with: Array("BM".utf8)) { return "BMP" }
        if head.starts(with: [0x49, 0x49, 0x2A, 0x00]) || head.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { return "TIFF" }
        if head.starts(with: Array("%PDF".utf8)) { return "PDF" }
        if head.count >= 12, Array(head[4..<8]) == Array("ftyp".utf8) {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            // HEIC and AVIF stills were recognised above (HEIFBrands); what is left of their families is sequences.
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
