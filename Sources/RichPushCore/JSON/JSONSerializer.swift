import Foundation

extension JSONValue {
    /// Writes the value as UTF-8 JSON. Compact output has no whitespace at all, which is what APNs counts
    /// against its size limit. Only `"`, `\` and control characters are escaped; "/" and non-ASCII text are
    /// written as they are. Numbers are written as their source text. Cost: O(size of the output).
    package func serialized(pretty: Bool = false) -> Data {
        var output: [UInt8] = []
        output.reserveCapacity(1024)
        write(to: &output, pretty: pretty, indent: 0)
        return Data(output)
    }

    /// The compact serialized size in bytes, the number APNs compares with its limit: what `serialized()` would
    /// write, counted without writing it.
    package var compactByteCount: Int {
        switch self {
        case .null: 4
        case .bool(let flag): flag ? 4 : 5
        case .number(let text): text.utf8.count
        case .string(let text): JSONValue.serializedCount(of: text)
        case .array(let elements): elements.reduce(max(1, elements.count) + 1) { $0 + $1.compactByteCount }
        case .object(let object):
            object.members.reduce(max(1, object.count) + 1) { $0 + JSONValue.serializedCount(of: $1.key) + 1 + $1.value.compactByteCount }
        }
    }

    func write(to output: inout [UInt8], pretty: Bool, indent: Int) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let text): output.append(contentsOf: text.utf8)
        case .string(let text): JSONValue.writeString(text, to: &output)
        case .array(let elements):
            if elements.isEmpty { output.append(contentsOf: [0x5B, 0x5D]); return }
            output.append(0x5B)
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(0x2C) }
                if pretty { JSONValue.newline(&output, indent: indent + 1) }
                element.write(to: &output, pretty: pretty, indent: indent + 1)
            }
            if pretty { JSONValue.newline(&output, indent: indent) }
            output.append(0x5D)
        case .object(let object):
            if object.isEmpty { output.append(contentsOf: [0x7B, 0x7D]); return }
            output.append(0x7B)
            for (index, member) in object.members.enumerated() {
                if index > 0 { output.append(0x2C) }
                if pretty { JSONValue.newline(&output, indent: indent + 1) }
                JSONValue.writeString(member.key, to: &output)
                output.append(0x3A)
                if pretty { output.append(0x20) }
                member.value.write(to: &output, pretty: pretty, indent: indent + 1)
            }
            if pretty { JSONValue.newline(&output, indent: indent) }
            output.append(0x7D)
        }
    }

    private static func newline(_ output: inout [UInt8], indent: Int) {
        output.append(0x0A)
        output.append(contentsOf: repeatElement(0x20, count: indent * 2))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// How many bytes `writeString` writes for `byte` beyond the byte itself: 1 for the two-character escapes, 5
    /// for `\u00XX`, 0 for a byte written as it is.
    @inline(__always)
    static func escapeExtraBytes(_ byte: UInt8) -> Int {
        switch byte {
        case 0x22, 0x5C, 0x0A, 0x0D, 0x09, 0x08, 0x0C: 1
        case ..<0x20: 5
        default: 0
        }
    }

    /// What `writeString` writes for `text`, counted: the quotes, the bytes and their escapes.
    private static func serializedCount(of text: String) -> Int {
        var text = text
        return text.withUTF8 { bytes in
            var count = bytes.count + 2
            var index = firstEscapeIndex(in: bytes, from: 0)
            while index < bytes.count {
                count += escapeExtraBytes(bytes[index])
                index = firstEscapeIndex(in: bytes, from: index + 1)
            }
            return count
        }
    }

    /// The index of the first byte at or after `start` that `writeString` escapes, or `bytes.count` when there is
    /// none. Eight bytes are tested at a time: most strings of a payload (URLs, tokens, keys, text) have no escape.
    @inline(__always)
    private static func firstEscapeIndex(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while index + 8 <= bytes.count {
                let flags = escapeFlags(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)))
                if flags != 0 { return index + flags.trailingZeroBitCount >> 3 }
                index += 8
            }
        }
        while index < bytes.count, escapeExtraBytes(bytes[index]) == 0 { index += 1 }
        return index
    }

    /// The high bit of each byte of `word` that is a control character, `"` or `\`. A borrow can also mark a byte
    /// above a marked one, never below it, so the lowest mark is always a byte to escape.
    @inline(__always)
    private static func escapeFlags(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let control = (word &- ones &* 0x20) & ~word
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        return (control | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)) & (ones &* 0x80)
    }

    static func writeString(_ text: String, to output: inout [UInt8]) {
        output.append(0x22)
        var text = text
        // Runs without an escape (nearly all of a payload) are copied in one piece.
        text.withUTF8 { bytes in
            var runStart = 0
            var index = firstEscapeIndex(in: bytes, from: 0)
            while index < bytes.count {
                let byte = bytes[index]
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                runStart = index + 1
                index = firstEscapeIndex(in: bytes, from: runStart)
                switch byte {
                case 0x22: output.append(contentsOf: [0x5C, 0x22])
                case 0x5C: output.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: output.append(contentsOf: [0x5C, 0x6E])
                case 0x0D: output.append(contentsOf: [0x5C, 0x72])
                case 0x09: output.append(contentsOf: [0x5C, 0x74])
                case 0x08: output.append(contentsOf: [0x5C, 0x62])
                case 0x0C: output.append(contentsOf: [0x5C, 0x66])
                default:
                    output.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]])
                }
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
        }
        output.append(0x22)
    }
}
