import Foundation
import RichPushCore

/// A negative entry (`negative/ab/cd/<key>.json`): the same key fails fast with this error until `expiresAt`.
public struct CachedFailure: Sendable, Hashable, Codable {
    public var key: CacheKey
    public var code: ErrorCode
    public var message: String
    public var expiresAt: Date

    public init(key: CacheKey, code: ErrorCode, message: String, expiresAt: Date) {
        self.key = key
        self.code = code
        self.message = message
        self.expiresAt = expiresAt
    }
}
