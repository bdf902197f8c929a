/// A JSON object that keeps its members in source order.
///
/// Lookups are linear in the number of members, which is cheap for push payloads (a few dozen keys at most).
/// Keys are unique: setting an existing key replaces its value in place, keeping the original position.
///
/// Member names match by their bytes, as the devices' parsers match them (`ExactString` says why), not by Swift's
/// canonical equivalence: "caf\u{E9}" and "cafe\u{301}" are two members.
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// One member of the object.
    public struct Member: Sendable, Hashable {
        public var key: String
        public var value: JSONValue
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    public private(set) var members: [Member]

    /// An empty object.
    public init() { members = [] }

    /// An object with these members in this order; a repeated key keeps its first position and its last value.
    public init(_ pairs: [(String, JSONValue)]) {
        members = []
        for (key, value) in pairs { self[key] = value }
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }

    /// The keys in order.
    public var keys: [String] { members.map(\.key) }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }

    /// The value for `key`; setting nil removes the member, setting a new key appends it.
    public subscript(key: String) -> JSONValue? {
        get { index(forKey: key).map { members[$0].value } }
        set {
            if let index = index(forKey: key) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append(Member(key: key, value: newValue))
            }
        }
    }

    /// Removes `key` and returns its value, or nil when it was absent.
    @discardableResult
    package mutating func remove(_ key: String) -> JSONValue? {
        guard let index = index(forKey: key) else { return nil }
        return members.remove(at: index).value
    }

    /// Whether the object has a member named `key`.
    public func contains(_ key: String) -> Bool { index(forKey: key) != nil }

    /// Inserts or replaces `key`, placing a new member right after `anchor` when `anchor` exists.
    package mutating func set(_ value: JSONValue, for key: String, after anchor: String) {
        if contains(key) { self[key] = value; return }
        if let index = index(forKey: anchor) {
            members.insert(Member(key: key, value: value), at: index + 1)
        } else {
            members.append(Member(key: key, value: value))
        }
    }

    /// Appends without looking for an existing key; the parser uses it after doing its own duplicate check. A
    /// repeated key would be written twice.
    mutating func appendUnchecked(_ key: String, _ value: JSONValue) {
        members.append(Member(key: key, value: value))
    }

    mutating func replaceValue(atMemberIndex index: Int, with value: JSONValue) {
        members[index].value = value
    }

    /// The position of `key` among the members, or nil when it is absent.
    func index(forKey key: String) -> Int? { members.firstIndex { ExactString.same($0.key, key) } }

    /// Runs `body` on the value of the member at `index` in place (no copy of it while it changes).
    mutating func updateValue<Result>(atMemberIndex index: Int, _ body: (inout JSONValue) -> Result) -> Result {
        body(&members[index].value)
    }

    /// Iterates the members in order as (key, value) pairs, reading them in place rather than through a copy.
    public struct Iterator: IteratorProtocol {
        fileprivate var members: IndexingIterator<[Member]>

        public mutating func next() -> (key: String, value: JSONValue)? {
            members.next().map { (key: $0.key, value: $0.value) }
        }
    }

    public func makeIterator() -> Iterator { Iterator(members: members.makeIterator()) }
}
