import Foundation
/// Where a Redis server listens and how to log in to it, parsed from `redis://[user:password@]host:port/db`, or
/// `rediss://…` for TLS.
///
/// The port defaults to 6379 and the database to 0. User and password are percent-decoded. An IPv6 host is written
/// in brackets (`redis://[::1]:6379`). Parsing is pure string work and costs nothing noticeable.
public struct RedisEndpoint: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var database: Int
    /// The ACL user (Redis 6+). `nil` authenticates as `default` with `AUTH password`.
    public var username: String?
    public var password: String?
    /// How to run TLS (`rediss://`); nil is plain TCP (`redis://`).
    public var tls: RedisTLSSettings?

    public init(
        host: String, port: Int = 6379, database: Int = 0, username: String? = nil, password: String? = nil,
        tls: RedisTLSSettings? = nil
    ) {
        self.host = host
        self.port = port
        self.database = database
        self.username = username
        self.password = password
        self.tls = tls
    }

    /// Parses `redis://[user:password@]host[:port][/db]`; `rediss://` is the same over TLS, with the default
    /// ``RedisTLSSettings`` (the system's CAs, the host name checked).
    public init(parsing url: String) throws(QueueError) {
        let shown = RedisEndpoint.redacted(url)
        func fail(_ reason: String) -> QueueError { .invalidURL(url: shown, reason: reason) }

        guard let schemeEnd = url.range(of: "://") else { throw fail("missing scheme") }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "redis" || scheme == "rediss" else { throw fail("unsupported scheme \"\(scheme)\"") }

        var rest = Substring(url[schemeEnd.upperBound...])
        if rest.contains("?") || rest.contains("#") { throw fail("query strings and fragments are not supported") }

        // Authority ends at the first "/" after the last "@" (passwords may contain "/" only percent-encoded).
        var path = Substring("")
        let authorityStart = rest.lastIndex(of: "@").map { rest.index(after: $0) } ?? rest.startIndex
        if let slash = rest[authorityStart...].firstIndex(of: "/") {
            path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }

        var username: String?
        var password: String?
        var hostPort = rest
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            hostPort = rest[rest.index(after: at)...]
            let user: Substring
            let pass: Substring?
            if let colon = userInfo.firstIndex(of: ":") {
                user = userInfo[..<colon]
                pass = userInfo[userInfo.index(after: colon)...]
            } else {
                // redis://secret@host is the common legacy spelling of a password without a user.
                user = ""
                pass = userInfo
            }
            guard let decodedUser = RedisEndpoint.percentDecoded(user) else {
                throw fail("bad percent-encoding in the user name")
            }
            var decodedPassword: String?
            if let pass {
                guard let decoded = RedisEndpoint.percentDecoded(pass) else {
                    throw fail("bad percent-encoding in the password")
                }
                decodedPassword = decoded
            }
            username = decodedUser.isEmpty ? nil : decodedUser
            password = (decodedPassword?.isEmpty ?? true) ? nil : decodedPassword
            if username != nil && password == nil { throw fail("a user name needs a password") }
        }

        var host: Substring
        var portText: Substring?
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]") else { throw fail("unterminated IPv6 address") }
            host = hostPort[hostPort.index(after: hostPort.startIndex)..<close]
            let after = hostPort[hostPort.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw fail("unexpected text after the IPv6 address") }
                portText = after.dropFirst()
            }
        } else if let colon = hostPort.lastIndex(of: ":") {
            host = hostPort[..<colon]
            portText = hostPort[hostPort.index(after: colon)...]
        } else {
            host = hostPort
        }
        guard !host.isEmpty else { throw fail("missing host") }
        guard !host.contains(where: { $0 == " " || $0 == "/" || $0 == "@" }) else { throw fail("bad host") }

        var port = 6379
        if let portText {
            guard let value = Int(portText), (1...65_535).contains(value) else {
                throw fail("port must be a number from 1 to 65535")
            }
            port = value
        }

        var database = 0
        if !path.isEmpty {
            guard let value = Int(path), value >= 0 else { throw fail("database must be a non-negative number") }
            database = value
        }

        self.init(
            host: String(host), port: port, database: database, username: username, password: password,
            tls: scheme == "rediss" ? RedisTLSSettings() : nil)
    }

    /// `redis://user:***@host:port/db` (`rediss://` for TLS), never the password.
    public var description: String {
        var text = tls == nil ? "redis://" : "rediss://"
        if let username { text += "\(username):***@" } else if password != nil { text += ":***@" }
        text += host.contains(":") ? "[\(host)]" : host
        text += ":\(port)/\(database)"
        return text
    }

    /// The URL with the user information's password replaced by `***`, for error messages.
    static func redacted(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let afterScheme = url[schemeEnd.upperBound...]
        let authorityEnd = afterScheme.lastIndex(of: "@")
        guard let at = authorityEnd else { return url }
        let userInfo = afterScheme[..<at]
        let user = userInfo.firstIndex(of: ":").map { userInfo[..<$0] + ":" } ?? ""
        return url[..<schemeEnd.upperBound] + user + "***" + afterScheme[at...]
    }

    private static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
