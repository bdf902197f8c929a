/// Writes compact JSON straight to bytes, for output whose shape is fixed in code (a result line): no tree of
/// `JSONValue`s is built and walked for its fixed keys, and values that are trees already (a payload) are written
/// as `serialized()` writes them. The caller keeps the structure well formed: a key before each member's value,
/// `end` for each `begin`. Commas are placed by the writer.
package struct JSONWriter {
    package private(set) var bytes: [UInt8] = []
    /// Whether the next key or element follows a sibling and needs a comma.
    private var followsSibling = false

    package init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    package mutating func beginObject() { open(0x7B) }
    package mutating func endObject() { close(0x7D) }
    package mutating func beginArray() { open(0x5B) }
    package mutating func endArray() { close(0x5D) }

    /// The name of the next member, fixed in code, whose value the next call writes. It is copied as it is, so it
    /// must need no escape (no `"`, `\` or control character; checked in debug builds).
    package mutating func key(_ name: StaticString) {
        separate()
        bytes.append(0x22)
        name.withUTF8Buffer { name in
            assert(!name.contains { JSONValue.escapeExtraBytes($0) > 0 }, "a fixed key that needs an escape")
            bytes.append(contentsOf: name)
        }
        bytes.append(0x22)
        bytes.append(0x3A)
        followsSibling = false
    }

    /// The name of the next member, any text (a header's, a payload's): escaped as JSON needs.
    package mutating func key(text name: String) {
        separate()
        JSONValue.writeString(name, to: &bytes)
        bytes.append(0x3A)
        followsSibling = false
    }

    package mutating func string(_ text: String) {
        separate()
        JSONValue.writeString(text, to: &bytes)
        followsSibling = true
    }

    package mutating func number(_ value: Int) {
        separate()
        // Digits written in place, from the last: no String is made for each of a line's numbers.
        if value < 0 { bytes.append(0x2D) }
        var magnitude = value.magnitude
        var digits = 1
        var rest = magnitude / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        bytes.append(contentsOf: repeatElement(0x30, count: digits))
        bytes.withUnsafeMutableBufferPointer { buffer in
            var index = buffer.count - 1
            repeat {
                buffer[index] = 0x30 + UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
                index -= 1
            } while magnitude > 0
        }
        followsSibling = true
    }

    /// A number already in JSON's syntax (a decimal string).
    package mutating func number(text: String) {
        separate()
        bytes.append(contentsOf: text.utf8)
        followsSibling = true
    }

    package mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
        followsSibling = true
    }

    package mutating func value(_ value: JSONValue) {
        separate()
        value.write(to: &bytes, pretty: false, indent: 0)
        followsSibling = true
    }

    /// A member whose value is a string.
    package mutating func member(_ name: StaticString, _ text: String) {
        key(name)
        string(text)
    }

    /// A member whose value is an integer.
    package mutating func member(_ name: StaticString, _ value: Int) {
        key(name)
        number(value)
    }

    private mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        followsSibling = false
    }

    private mutating func close(_ bracket: UInt8) {
        bytes.append(bracket)
        followsSibling = true
    }

    private mutating func separate() {
        if followsSibling { bytes.append(0x2C) }
    }
}
