/// RFC 6901 JSON pointers: "" is the whole document, "/a/0/b~1c" is key "b/c" of element 0 of "a".
package enum JSONPointer {
    /// Escapes one reference token: "~" becomes "~0" and "/" becomes "~1".
    package static func escape(_ token: String) -> String {
        // Byte scans: Foundation's `String.contains(_:)` goes through CFString and was a hot spot of every job.
        guard token.utf8.contains(where: { $0 == 0x7E || $0 == 0x2F }) else { return token }
        return token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    /// Undoes `escape`; "~1" is decoded before "~0" is, as the RFC requires, so "~01" stays "~1".
    package static func unescape(_ token: String) -> String {
        guard token.utf8.contains(0x7E) else { return token }
        return token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
    }

    /// Splits a pointer into unescaped tokens, or nil when it does not start with "/" (and is not "").
    package static func tokens(_ pointer: String) -> [String]? {
        if pointer.isEmpty { return [] }
        // A byte scan: splitting the String by Characters was a visible share of a warm job, pointers being walked
        // at every map and rewrite (docs/benchmarks.md, "The warm job against its floor"). "/" is ASCII, so every
        // cut is on a scalar boundary.
        let bytes = pointer.utf8
        guard bytes.first == 0x2F else { return nil }
        var tokens: [String] = []
        var start = bytes.index(after: bytes.startIndex)
        var index = start
        while index < bytes.endIndex {
            if bytes[index] == 0x2F {
                tokens.append(unescape(String(decoding: bytes[start..<index], as: UTF8.self)))
                start = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        tokens.append(unescape(String(decoding: bytes[start..<bytes.endIndex], as: UTF8.self)))
        return tokens
    }

    /// Builds a pointer from unescaped tokens.
    package static func make(_ tokens: [String]) -> String {
        // One string grown in place: a string per token and their join was most of discovery's own time.
        var pointer = ""
        pointer.reserveCapacity(tokens.reduce(0) { $0 + 1 + $1.utf8.count })
        for token in tokens {
            pointer.append("/")
            pointer.append(escape(token))
        }
        return pointer
    }

    static func arrayIndex(_ token: String, count: Int) -> Int? {
        guard !token.isEmpty, token.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        if token.count > 1 && token.hasPrefix("0") { return nil }
        guard let index = Int(token), index < count else { return nil }
        return index
    }
}

import Foundation

extension JSONValue {
    /// How a pointer walk treats what it meets on the way.
    package struct PointerWalk: OptionSet, Sendable {
        package let rawValue: Int
        package init(rawValue: Int) { self.rawValue = rawValue }

        /// A JSON string holding an object or array is walked into (Pushwoosh's `data`, a `u` container); a write
        /// leaves it a string.
        package static let throughJSONText = PointerWalk(rawValue: 1)
        /// A write creates the missing objects on its way instead of failing.
        package static let creatingObjects = PointerWalk(rawValue: 2)
    }

    /// The value an RFC 6901 pointer designates, or nil when it does not exist. Cost: O(depth × keys).
    package func value(at pointer: String) -> JSONValue? {
        JSONPointer.tokens(pointer).flatMap { value(at: $0[...]) }
    }

    /// The value at `tokens`, or nil when it does not exist; `walk` says whether to read through JSON text.
    package func value(at tokens: ArraySlice<String>, walk: PointerWalk = []) -> JSONValue? {
        guard let token = tokens.first else { return self }
        switch self {
        case .object(let object):
            return object[token]?.value(at: tokens.dropFirst(), walk: walk)
        case .array(let elements):
            guard let index = JSONPointer.arrayIndex(token, count: elements.count) else { return nil }
            return elements[index].value(at: tokens.dropFirst(), walk: walk)
        case .string(let text) where walk.contains(.throughJSONText):
            return (try? JSONParser.parse(Data(text.utf8)))?.value(at: tokens, walk: walk)
        default:
            return nil
        }
    }

    /// Replaces the value at an existing pointer location (or adds a missing last key to an object); nil removes it.
    /// Returns false and leaves the value unchanged when the parent does not exist.
    @discardableResult
    package mutating func setValue(_ newValue: JSONValue?, at pointer: String) -> Bool {
        guard let tokens = JSONPointer.tokens(pointer) else { return false }
        return setValue(newValue, at: tokens[...])
    }

    /// Sets (or with nil removes) the value at `tokens`, walking as `walk` says. Returns false and leaves the value
    /// unchanged when a parent is missing (and not created) or is not a container; removing what is not there
    /// succeeds and changes nothing.
    ///
    /// Changes each container on the way in place: the container is taken out of `self` (which holds `.null`
    /// meanwhile) so that it is the storage's only owner, and put back on every path. A walk that kept `self`
    /// holding it would copy every object and array along the pointer at each write.
    @discardableResult
    package mutating func setValue(_ newValue: JSONValue?, at tokens: ArraySlice<String>, walk: PointerWalk = []) -> Bool {
        guard let token = tokens.first else {
            guard let newValue else { return false }
            self = newValue
            return true
        }
        let rest = tokens.dropFirst()
        switch self {
        case .object(var object):
            self = .null
            defer { self = .object(object) }
            if rest.isEmpty {
                object[token] = newValue
                return true
            }
            if let index = object.index(forKey: token) {
                return object.updateValue(atMemberIndex: index) { $0.setValue(newValue, at: rest, walk: walk) }
            }
            if newValue == nil { return true }
            guard walk.contains(.creatingObjects) else { return false }
            var child = JSONValue.object(JSONObject())
            guard child.setValue(newValue, at: rest, walk: walk) else { return false }
            object[token] = child
            return true
        case .array(var elements):
            guard let index = JSONPointer.arrayIndex(token, count: elements.count) else { return false }
            self = .null
            defer { self = .array(elements) }
            if rest.isEmpty {
                if let newValue { elements[index] = newValue } else { elements.remove(at: index) }
                return true
            }
            return elements[index].setValue(newValue, at: rest, walk: walk)
        case .string(let text) where walk.contains(.throughJSONText):
            guard var inner = try? JSONParser.parse(Data(text.utf8)), inner.setValue(newValue, at: tokens, walk: walk)
            else { return false }
            self = .string(String(decoding: inner.serialized(), as: UTF8.self))
            return true
        default:
            return false
        }
    }
}
