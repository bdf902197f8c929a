import Foundation

/// A strict RFC 8259 parser that keeps key order and number source text.
///
/// Duplicate keys (the same bytes: `ExactString`): the last value wins and keeps the position of the first
/// occurrence (as JavaScript's `JSON.parse` does); `parseReportingDuplicates` lists their pointers so callers can
/// warn.
/// Cost: one pass over the bytes, O(n) time; an object with k keys costs O(k) extra for the duplicate check.
package struct JSONParser {
    /// A parsed value plus the RFC 6901 pointers of keys that appeared more than once in their object.
    package struct Result: Sendable {
        package var value: JSONValue
        package var duplicateKeyPointers: [String]
    }

    /// Parses one JSON document. Throws with line and column on the first error.
    package static func parse(_ data: Data, maximumDepth: Int = 64) throws(JSONParseError) -> JSONValue {
        try parseReportingDuplicates(data, maximumDepth: maximumDepth).value
    }

    /// Parses one JSON document and reports duplicate keys.
    package static func parseReportingDuplicates(_ data: Data, maximumDepth: Int = 64) throws(JSONParseError) -> Result {
        var parser = Parser(bytes: [UInt8](data), maximumDepth: maximumDepth)
        return try parser.parseDocument()
    }
}

private struct Parser {
    let bytes: [UInt8]
    let maximumDepth: Int
    var position = 0
    var duplicates: [String] = []
    /// Keys and indices from the root to the value being parsed; only turned into a pointer for a duplicate.
    var path: [String] = []

    init(bytes: [UInt8], maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONParser.Result {
        // A UTF-8 byte order mark is tolerated (RFC 8259 section 8.1 allows ignoring it).
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
        skipWhitespace()
        if position >= bytes.count { throw .emptyInput }
        let value = try parseValue(depth: 0)
        skipWhitespace()
        if position < bytes.count {
            let (line, column) = location(of: position)
            throw .trailingContent(line: line, column: column)
        }
        return JSONParser.Result(value: value, duplicateKeyPointers: duplicates)
    }

    func location(of offset: Int) -> (Int, Int) {
        var line = 1
        var column = 1
        var index = 0
        let end = min(offset, bytes.count)
        while index < end {
            let byte = bytes[index]
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            index += 1
        }
        return (line, column)
    }

    func describe(_ offset: Int) -> String {
        guard offset < bytes.count else { return "the end of the input" }
        let byte = bytes[offset]
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(UnicodeScalar(byte)))'" }
        return String(format: "byte 0x%02X", byte)
    }

    func unexpected(expected: String) -> JSONParseError {
        let (line, column) = location(of: position)
        if position >= bytes.count { return .unexpectedEnd(line: line, column: column) }
        return .unexpectedCharacter(found: describe(position), expected: expected, line: line, column: column)
    }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard position < bytes.count else { throw unexpected(expected: "a value") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw unexpected(expected: "a value (object, array, string, number, true, false or null)")
        }
    }

    mutating func expectLiteral(_ literal: String) throws(JSONParseError) {
        for byte in literal.utf8 {
            guard position < bytes.count, bytes[position] == byte else { throw unexpected(expected: "'\(literal)'") }
            position += 1
        }
    }

    mutating func enter(depth: Int) throws(JSONParseError) {
        if depth > maximumDepth {
            let (line, column) = location(of: position)
            throw .tooDeep(limit: maximumDepth, line: line, column: column)
        }
    }

    /// The member count from which an object's keys are indexed for the duplicate check.
    static let indexedMemberCount = 16

    mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        try enter(depth: depth)
        position += 1
        var object = JSONObject()
        // Repeated keys are found by comparing with the members so far while the object is small (most are), and
        // through an index once it reaches `indexedMemberCount`, so a large object does not cost a square.
        var indexByKey: [ExactString: Int]?
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw unexpected(expected: "a quoted key")
            }
            let key = try parseString()
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw unexpected(expected: "':'") }
            position += 1
            skipWhitespace()
            path.append(key)
            let value = try parseValue(depth: depth)
            let existing = if let indexByKey { indexByKey[ExactString(key)] } else { object.index(forKey: key) }
            if let existing {
                object.replaceValue(atMemberIndex: existing, with: value)
                duplicates.append(JSONPointer.make(path))
            } else {
                indexByKey?[ExactString(key)] = object.count
                object.appendUnchecked(key, value)
                if indexByKey == nil, object.count == Self.indexedMemberCount {
                    indexByKey = Dictionary(uniqueKeysWithValues: object.members.enumerated().map { (ExactString($1.key), $0) })
                }
            }
            path.removeLast()
            skipWhitespace()
            guard position < bytes.count else { throw unexpected(expected: "',' or '}'") }
            if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
            if bytes[position] == UInt8(ascii: "}") { position += 1; return .object(object) }
            throw unexpected(expected: "',' or '}'")
        }
    }

    mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        try enter(depth: depth)
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            path.append(String(elements.count))
            elements.append(try parseValue(depth: depth))
            path.removeLast()
            skipWhitespace()
            guard position < bytes.count else { throw unexpected(expected: "',' or ']'") }
            if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
            if bytes[position] == UInt8(ascii: "]") { position += 1; return .array(elements) }
            throw unexpected(expected: "',' or ']'")
        }
    }

    mutating func parseNumber() throws(JSONParseError) -> String {
        let start = position
        func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
        var valid = true
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        if position < bytes.count, bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count, isDigit(bytes[position]) { valid = false }
        } else if position < bytes.count, isDigit(bytes[position]) {
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        } else {
            valid = false
        }
        if valid, position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            let fractionStart = position
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
            if position == fractionStart { valid = false }
        }
        if valid, position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            let exponentStart = position
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
            if position == exponentStart { valid = false }
        }
        if !valid {
            // Swallow the rest of the token so the message shows what the sender wrote.
            while position < bytes.count, !"{}[],: \t\r\n".utf8.contains(bytes[position]) { position += 1 }
            let text = String(decoding: bytes[start..<min(position, start + 40)], as: UTF8.self)
            let (line, column) = location(of: start)
            throw .invalidNumber(text: text, line: line, column: column)
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    mutating func hexValue(at offset: Int) -> UInt32? {
        guard offset + 4 <= bytes.count else { return nil }
        var result: UInt32 = 0
        for byte in bytes[offset..<offset + 4] {
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: return nil
            }
            result = result << 4 | digit
        }
        return result
    }

    mutating func parseString() throws(JSONParseError) -> String {
        position += 1
        var output: [UInt8] = []
        var runStart = position
        while true {
            guard position < bytes.count else {
                let (line, column) = location(of: position)
                throw .unexpectedEnd(line: line, column: column)
            }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                output.append(contentsOf: bytes[runStart..<position])
                position += 1
                return String(decoding: output, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") {
                output.append(contentsOf: bytes[runStart..<position])
                try parseEscape(into: &output)
                runStart = position
                continue
            }
            if byte < 0x20 {
                let (line, column) = location(of: position)
                throw .controlCharacterInString(line: line, column: column)
            }
            if byte < 0x80 {
                position += 1
                continue
            }
            try skipValidUTF8Sequence()
        }
    }

    /// Checks one multi-byte sequence strictly: no overlong forms, no surrogates, nothing above U+10FFFF.
    mutating func skipValidUTF8Sequence() throws(JSONParseError) {
        let first = bytes[position]
        let length: Int
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch first {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; upper = 0x9F
        case 0xF0: length = 4; lower = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; upper = 0x8F
        default:
            let (line, column) = location(of: position)
            throw .invalidUTF8(line: line, column: column)
        }
        for offset in 1..<length {
            let index = position + offset
            let allowedLower = offset == 1 ? lower : 0x80
            let allowedUpper = offset == 1 ? upper : 0xBF
            guard index < bytes.count, bytes[index] >= allowedLower, bytes[index] <= allowedUpper else {
                let (line, column) = location(of: position)
                throw .invalidUTF8(line: line, column: column)
            }
        }
        position += length
    }

    mutating func parseEscape(into output: inout [UInt8]) throws(JSONParseError) {
        let escapeStart = position
        position += 1
        guard position < bytes.count else {
            let (line, column) = location(of: position)
            throw .unexpectedEnd(line: line, column: column)
        }
        let letter = bytes[position]
        position += 1
        switch letter {
        case UInt8(ascii: "\""): output.append(0x22)
        case UInt8(ascii: "\\"): output.append(0x5C)
        case UInt8(ascii: "/"): output.append(0x2F)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            guard let unit = hexValue(at: position) else {
                let (line, column) = location(of: escapeStart)
                throw .invalidEscape(line: line, column: column)
            }
            position += 4
            var scalarValue = unit
            if (0xD800...0xDBFF).contains(unit) {
                guard position + 6 <= bytes.count, bytes[position] == UInt8(ascii: "\\"),
                      bytes[position + 1] == UInt8(ascii: "u"), let low = hexValue(at: position + 2),
                      (0xDC00...0xDFFF).contains(low) else {
                    let (line, column) = location(of: escapeStart)
                    throw .unpairedSurrogate(line: line, column: column)
                }
                position += 6
                scalarValue = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(unit) {
                let (line, column) = location(of: escapeStart)
                throw .unpairedSurrogate(line: line, column: column)
            }
            guard let scalar = Unicode.Scalar(scalarValue) else {
                let (line, column) = location(of: escapeStart)
                throw .unpairedSurrogate(line: line, column: column)
            }
            output.append(contentsOf: Array(String(Character(scalar)).utf8))
        default:
            let (line, column) = location(of: escapeStart)
            throw .invalidEscape(line: line, column: column)
        }
    }
}
