/// Makes untrusted text safe to print on a terminal line.
///
/// Ids, messages, pointers and URLs come from the input. Printed raw, an ESC could clear the screen or recolour the
/// report, and a CR or LF could start a forged line (a fake `summary:`). Control characters (C0, DEL, C1) become
/// visible escapes instead: `\n`, `\r`, `\t`, else `\u{1B}` with the code point in hex. Costs one pass over the text.
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

    /// C0 (U+0000–U+001F, ESC included), DEL (U+007F) and C1 (U+0080–U+009F, CSI among them).
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
