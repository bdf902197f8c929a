import Glibc

/// A string that equals another only when their UTF-8 bytes are the same, for the tables keyed by what a document
/// names: its member names, the JSON pointers made of them, and its media's source URLs.
///
/// Swift's `String ==` is canonical equivalence, so "caf\u{E9}" and "cafe\u{301}" are one key in a `[String: ...]`.
/// To the parsers on the devices they are two (an iOS `NSDictionary` compares `NSString` keys literally, by UTF-16
/// code units; Android's `org.json.JSONObject` keeps a `LinkedHashMap` of Java strings, equal only char by char), as
/// RFC 8259 section 8.3 advises (code unit by code unit); as URL paths they name two files. Keyed by `ExactString`,
/// they stay two.
package struct ExactString: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    package let text: String

    package init(_ text: String) { self.text = text }

    package init(stringLiteral text: String) { self.text = text }

    package var description: String { text }

    package static func == (lhs: ExactString, rhs: ExactString) -> Bool { same(lhs.text, rhs.text) }

    package func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Whether `first` and `second` are the same bytes. Most names differ in length, which is read without a call;
    /// short ones of one length are compared in place, byte by byte (a call to `memcmp` cost more than the loop for
    /// member names), longer ones (URLs, pointers) with `memcmp`.
    @inline(__always)
    package static func same(_ first: String, _ second: String) -> Bool {
        let count = first.utf8.count
        guard count == second.utf8.count else { return false }
        let compared = first.utf8.withContiguousStorageIfAvailable { first in
            second.utf8.withContiguousStorageIfAvailable { second in
                guard count > 16 else {
                    var index = 0
                    while index < count, first[index] == second[index] { index += 1 }
                    return index == count
                }
                return memcmp(first.baseAddress!, second.baseAddress!, count) == 0
            }
        }
        if case let same?? = compared { return same }
        return first.utf8.elementsEqual(second.utf8)
    }
}
