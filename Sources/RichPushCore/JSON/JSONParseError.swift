/// Why a document is not strict RFC 8259 JSON. Lines and columns are 1-based; columns count Unicode scalars.
package enum JSONParseError: RichPushError, Hashable {
    case emptyInput
    case unexpectedEnd(line: Int, column: Int)
    case unexpectedCharacter(found: String, expected: String, line: Int, column: Int)
    case invalidUTF8(line: Int, column: Int)
    case invalidEscape(line: Int, column: Int)
    case unpairedSurrogate(line: Int, column: Int)
    case controlCharacterInString(line: Int, column: Int)
    case invalidNumber(text: String, line: Int, column: Int)
    case tooDeep(limit: Int, line: Int, column: Int)
    case trailingContent(line: Int, column: Int)

    /// Stable snake_case identifier used in JSON output and diagnostics.
    package var code: ErrorCode {
        switch self {
        case .emptyInput: return "json_empty"
        case .unexpectedEnd: return "json_unexpected_end"
        case .unexpectedCharacter: return "json_unexpected_character"
        case .invalidUTF8: return "json_invalid_utf8"
        case .invalidEscape: return "json_invalid_escape"
        case .unpairedSurrogate: return "json_unpaired_surrogate"
        case .controlCharacterInString: return "json_control_character"
        case .invalidNumber: return "json_invalid_number"
        case .tooDeep: return "json_too_deep"
        case .trailingContent: return "json_trailing_content"
        }
    }

    /// The same bytes never parse: a document's fault, never ours.
    package var isPermanent: Bool { true }
    package var isLocalFault: Bool { false }

    /// 1-based line of the problem, 0 for empty input.
    package var line: Int {
        switch self {
        case .emptyInput: return 0
        case .unexpectedEnd(let line, _), .invalidUTF8(let line, _), .invalidEscape(let line, _),
             .unpairedSurrogate(let line, _), .controlCharacterInString(let line, _), .tooDeep(_, let line, _),
             .trailingContent(let line, _), .unexpectedCharacter(_, _, let line, _), .invalidNumber(_, let line, _):
            return line
        }
    }

    /// 1-based column of the problem, 0 for empty input.
    package var column: Int {
        switch self {
        case .emptyInput: return 0
        case .unexpectedEnd(_, let column), .invalidUTF8(_, let column), .invalidEscape(_, let column),
             .unpairedSurrogate(_, let column), .controlCharacterInString(_, let column), .tooDeep(_, _, let column),
             .trailingContent(_, let column), .unexpectedCharacter(_, _, _, let column), .invalidNumber(_, _, let column):
            return column
        }
    }

    package var description: String {
        let place = "line \(line), column \(column)"
        switch self {
        case .emptyInput:
            return "the input is empty; a payload must be one JSON object"
        case .unexpectedEnd:
            return "\(place): the JSON ends too early; check for a missing closing bracket, brace or quote"
        case .unexpectedCharacter(let found, let expected, _, _):
            return "\(place): found \(found) where \(expected) was expected"
        case .invalidUTF8:
            return "\(place): the bytes are not valid UTF-8; save the file as UTF-8"
        case .invalidEscape:
            return "\(place): invalid escape sequence in a string; use \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX"
        case .unpairedSurrogate:
            return "\(place): a \\u escape is half of a UTF-16 surrogate pair; write both halves or the character itself"
        case .controlCharacterInString:
            return "\(place): raw control character inside a string; escape it (for example \\n)"
        case .invalidNumber(let text, _, _):
            return "\(place): \"\(text)\" is not a JSON number (no leading zeros, '+', 'NaN' or trailing '.')"
        case .tooDeep(let limit, _, _):
            return "\(place): nesting is deeper than \(limit) levels; flatten the payload"
        case .trailingContent:
            return "\(place): unexpected content after the JSON value; send one value per document"
        }
    }
}
