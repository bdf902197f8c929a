import Foundation
import RichPushCore

/// A RESP2 reply, copied out of the `redisReply` tree hiredis's reader builds, so it can outlive `freeReplyObject`.
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

/// One Redis command, encoded in RESP as its arguments are appended (binary-safe), so that sending it costs one copy
/// into the connection's request buffer: no array of arguments to allocate, join and format again per command.
struct RedisCommand: Sendable {
    /// Room before the first argument for the `*<count>\r\n` header, rewritten right-aligned after every append.
    private static let headerSpace = 24
    private var bytes = [UInt8](repeating: 0, count: RedisCommand.headerSpace)
    private var headerStart = RedisCommand.headerSpace
    private(set) var argumentCount = 0
    /// The first argument, for error messages.
    private(set) var name = ""

    init(_ words: String...) { self.init(words) }

    init(_ words: [String]) {
        for word in words { append(word) }
    }

    mutating func append(_ argument: String) { appendBulk(argument.utf8) }

    mutating func append(_ argument: Data) { appendBulk(argument) }

    private mutating func appendBulk<Bytes: Collection<UInt8>>(_ argument: Bytes) {
        if argumentCount == 0 { name = String(decoding: argument, as: UTF8.self) }
        bytes.append(0x24)  // $
        bytes.append(contentsOf: String(argument.count).utf8)
        bytes.append(contentsOf: [0x0D, 0x0A])
        bytes.append(contentsOf: argument)
        bytes.append(contentsOf: [0x0D, 0x0A])
        argumentCount += 1
        let header = Array("*\(argumentCount)\r\n".utf8)
        headerStart = Self.headerSpace - header.count
        bytes.replaceSubrange(headerStart..<Self.headerSpace, with: header)
    }

    /// The length of ``withEncodedBytes(_:)``'s bytes.
    var encodedCount: Int { bytes.count - headerStart }

    /// The command as sent: `*<count>\r\n` then `$<length>\r\n<bytes>\r\n` per argument.
    func withEncodedBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[headerStart...])) }
    }
}
