/// RFC 6901 JSON pointers: "" is the whole document, "/a/0/b~1c" is key "b/c" of element 0 of "a".
public enum JSONPointer {
    /// Escapes one reference token: "~" becomes "~0" and "/" becomes "~1".
    public static func escape(_ token: String) -> String {
        // Byte scans: Foundation's `String.contains(_:)` goes through CFString and was a hot spot of every job.
        guard token.utf8.contains(where: { $0 == 0x7E || $0 == 0x2F }) else { return token }
        return token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    /// Undoes `escape`; "~1" is decoded before "~0" is, as the RFC requires, so "~01" stays "~1".
    public static func unescape(_ token: String) -> String {
        guard token.utf8.contains(0x7E) else { return token }
        return token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
    }

    /// Splits a pointer into unescaped tokens, or nil when it does not start with "/" (and is not "").
    public static func tokens(_ pointer: String) -> [String]? {
        if pointer.isEmpty { return [] }
        guard pointer.hasPrefix("/") else { return nil }
        return pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map { unescape(String($0)) }
    }

    /// Builds a pointer from unescaped tokens.
    public static func make(_ tokens: [String]) -> String {
        tokens.map { "/" + escape($0) }.joined()
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
    /// The value an RFC 6901 pointer designates, or nil when it does not exist. Cost: O(depth × keys).
    public func value(at pointer: String) -> JSONValue? {
        guard let tokens = JSONPointer.tokens(pointer) else { return nil }
        var current = self
        for token in tokens {
            switch current {
            case .object(let object):
                guard let next = object[token] else { return nil }
                current = next
            case .array(let elements):
                guard let index = JSONPointer.arrayIndex(token, count: elements.count) else { return nil }
                current = elements[index]
            default:
                return nil
            }
        }
        return current
    }

    /// Replaces the value at an existing pointer location (or adds a missing last key to an object).
    /// Returns false and leaves the value unchanged when the parent does not exist.
    @discardableResult
    package mutating func setValue(_ newValue: JSONValue?, at pointer: String) -> Bool {
        guard let tokens = JSONPointer.tokens(pointer) else { return false }
        return JSONValue.set(&self, tokens[...], newValue)
    }

    private static func set(_ target: inout JSONValue, _ tokens: ArraySlice<String>, _ newValue: JSONValue?) -> Bool {
        guard let token = tokens.first else {
            guard let newValue else { return false }
            target = newValue
            return true
        }
        let rest = tokens.dropFirst()
        switch target {
        case .object(var object):
            if rest.isEmpty {
                object[token] = newValue
                target = .object(object)
                return true
            }
            guard var child = object[token] else { return false }
            guard set(&child, rest, newValue) else { return false }
            object[token] = child
            target = .object(object)
            return true
        case .array(var elements):
            guard let index = JSONPointer.arrayIndex(token, count: elements.count) else { return false }
            if rest.isEmpty {
                if let newValue { elements[index] = newValue } else { elements.remove(at: index) }
                target = .array(elements)
                return true
            }
            var child = elements[index]
            guard set(&child, rest, newValue) else { return false }
            elements[index] = child
            target = .array(elements)
            return true
        default:
            return false
        }
    }
}
