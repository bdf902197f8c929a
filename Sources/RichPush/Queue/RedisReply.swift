import Foundation

/// A RESP2 reply, copied out of hiredis's `redisReply` tree so it can outlive `freeReplyObject`.
enum RedisReply: Sendable, Hashable, CustomStringConvertible {
    case string(Data)
    case status(String)
    case integer(Int64)
    case array([RedisReply])
    case null
    case error(String)

    var text: String? {
        switch self {
        case .string(let data): String(decoding: data, as: UTF8.self)
        case .status(let text): text
        default: nil
        }
    }

    var data: Data? {
        switch self {
        case .string(let data): data
        case .status(let text): Data(text.utf8)
        default: nil
        }
    }

    var elements: [RedisReply]? {
        if case .array(let elements) = self { elements } else { nil }
    }

    var errorMessage: String? {
        if case .error(let message) = self { message } else { nil }
    }

    /// The first word of an error reply (`NOGROUP`, `WRONGPASS`, `LOADING`, ...).
    var errorPrefix: String? {
        errorMessage.map { String($0.prefix { $0 != " " }) }
    }

    var description: String {
        switch self {
        case .string(let data): "\"\(String(decoding: data.prefix(80), as: UTF8.self))\""
        case .status(let text): text
        case .integer(let value): "(integer) \(value)"
        case .array(let elements): "[" + elements.prefix(4).map(\.description).joined(separator: ", ")
            + (elements.count > 4 ? ", … \(elements.count) elements]" : "]")
        case .null: "(nil)"
        case .error(let message): "(error) \(message)"
        }
    }
}

/// One Redis command as binary-safe arguments.
struct RedisCommand: Sendable {
    var arguments: [Data]

    init(_ arguments: [Data]) { self.arguments = arguments }

    init(_ words: String...) { self.arguments = words.map { Data($0.utf8) } }

    init(_ words: [String]) { self.arguments = words.map { Data($0.utf8) } }

    var name: String { arguments.first.map { String(decoding: $0, as: UTF8.self) } ?? "" }
}
