/// Makes untrusted text safe to print on a terminal line.
///
/// Ids, messages, pointers and URLs come from the input. Printed raw, an ESC could clear the screen or recolour the
/// report, and a CR or LF could start a forged line (a fake `summary:`). U+2028 and U+2029 break lines in many
/// terminals and viewers, and the bidirectional controls (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C)
/// reorder what follows them, so a URL or message could read as something else. All of these (C0, DEL, C1 and
/// those) become visible escapes instead: `\n`, `\r`, `\t`, else `\u{1B}` with the code point in hex. Costs one
/// pass over the text.
enum TerminalText {
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard isControl(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default: result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return result
    }

    /// C0 (U+0000–U+001F, ESC included), DEL (U+007F), C1 (U+0080–U+009F, CSI among them), the line and paragraph
    /// separators, and the bidirectional marks, embeddings, overrides and isolates.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: true
        default: false
        }
    }
}
