import Foundation
import RichPushCore

/// The time rules every store applies the same way: freshness from the origin's max-age, how long failures are
/// remembered, and how `retainUntil` is rounded and raised.
struct CacheFreshnessRules: Sendable {
    /// The defaults of both stores' configurations (`CacheConfiguration`, `ObjectStorageConfiguration`).
    static let defaultTTL: Duration = .seconds(7 * 86_400)
    static let defaultMaximumTTL: Duration = .seconds(7 * 86_400)
    static let defaultNegativeTTL: Duration = .seconds(300)
    static let defaultRetentionGranularity: Duration = .seconds(3_600)

    var defaultTTL: Duration
    var maximumTTL: Duration
    var negativeTTL: Duration
    var retentionGranularity: Duration
    /// Every reading of the time below and in the stores goes through it (see `CacheClock`).
    var clock: any CacheClock

    /// The wall-clock time now.
    var now: Date { clock.date }

    /// `date` rounded up to a multiple of `retentionGranularity` (never down).
    func roundedRetention(_ date: Date) -> Date {
        let step = retentionGranularity.timeInterval
        guard step > 0 else { return Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded(.up) / 1000) }
        let seconds = date.timeIntervalSince1970
        return Date(timeIntervalSince1970: (seconds / step).rounded(.up) * step)
    }

    /// Whether `failure` is still live now.
    func isLive(_ failure: CachedFailure) -> Bool { now < failure.expiresAt }

    /// Whether `object` is fresh now.
    func isFresh(_ object: CachedObject) -> Bool { object.isFresh(at: now) }

    /// Whether `object` must be retained longer than it is to cover `requested`.
    func needsRetention(_ object: CachedObject, until requested: Date?) -> Bool {
        guard let requested else { return false }
        guard let current = object.retainUntil else { return true }
        return current < requested
    }

    /// Seconds of freshness for an origin max-age: the default without one, capped at `maximumTTL`.
    func timeToLive(maxAge: Duration?) -> TimeInterval {
        guard let maxAge else { return defaultTTL.timeInterval }
        return max(0, min(maxAge.timeInterval, maximumTTL.timeInterval))
    }

    /// A negative entry for `key` that lives for `negativeTTL` from now.
    func failure(_ key: CacheKey, code: ErrorCode, message: String) -> CachedFailure {
        CachedFailure(
            key: key, code: code, message: message,
            expiresAt: now.addingTimeInterval(negativeTTL.timeInterval).cacheMillisecondPrecision)
    }
}
