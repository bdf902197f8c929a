import Foundation
import RichPushCore

/// What a producer hands back to the store inside single-flight.
public enum CacheProduction: Sendable {
    /// New bytes to publish in `format` (a format that is never published, or an image without pixels, become an
    /// `invalid_output` negative entry); the stored extension is the format's own. `sourceWidth` and
    /// `sourceHeight` are the upright source image's size (0 when there is none, as for audio and video). `score` is
    /// the render's SSIMULACRA2 score, kept in the sidecar so cache hits report it too.
    case object(
        bytes: Data, format: CacheObjectFormat, width: Int, height: Int, etag: String?, lastModified: String?,
        maxAge: Duration?, sourceWidth: Int = 0, sourceHeight: Int = 0, score: Double? = nil)
    /// The origin answered 304: refresh the stored object's metadata and freshness only.
    case notModified(etag: String?, lastModified: String?, maxAge: Duration?)
    /// The producer's typed failure. A permanent one (`isPermanent`) is remembered as a negative entry for
    /// `negativeTTL`, its code and description stored; any other is thrown as `CacheError.producerFailed` and retried.
    case failure(any RichPushError)
}

/// How `MediaStore.object(for:...)` resolved a key.
public enum CacheOutcome: Sendable {
    /// Fresh object, no production ran.
    case hit(CachedObject)
    /// The producer ran and published. Callers that joined an in-flight production get the same outcome.
    case produced(CachedObject)
    /// The producer returned `notModified`.
    case revalidated(CachedObject)
    /// Negative entry; `cached` is true when it was served from an existing entry without calling the producer.
    case failed(CachedFailure, cached: Bool)

    /// The object, unless the outcome is a failure.
    public var object: CachedObject? {
        switch self {
        case .hit(let object), .produced(let object), .revalidated(let object): return object
        case .failed: return nil
        }
    }

    /// The same outcome carrying `object` instead (after a retention raise); failures stay as they are.
    func replacingObject(with object: CachedObject) -> CacheOutcome {
        switch self {
        case .hit: return .hit(object)
        case .produced: return .produced(object)
        case .revalidated: return .revalidated(object)
        case .failed: return self
        }
    }
}

extension CacheProduction {
    /// Runs a producer for a store: `CacheError`s pass through, cancellation becomes `cancelled`, and any other error
    /// `producer_failed` (retried later, never remembered). Failures a producer means to report come back as
    /// `failure`, not thrown.
    static func make(
        by produce: (CachedObject?) async throws -> CacheProduction, replacing current: CachedObject?
    ) async throws(CacheError) -> CacheProduction {
        do {
            return try await produce(current)
        } catch let error as CacheError {
            throw error
        } catch is CancellationError {
            throw CacheError.cancelled
        } catch {
            throw CacheError.producerThrew(reason: "\(error)")
        }
    }
}

extension CachedObject {
    /// The record of an object published at `now` under `relativePath`: fresh for the origin's `maxAge` (as the
    /// rules allow), used now, and keeping the hits and retention of the object it replaces, with the retention
    /// raised (rounded up) to `retainUntil` when that is later.
    init(
        publishedAt now: Date, key: CacheKey, sourceURL: String, variant: String, width: Int, height: Int,
        byteCount: Int, format: CacheObjectFormat, contentSHA256: String, etag: String?, lastModified: String?,
        maxAge: Duration?, retainUntil: Date?, replacing previous: CachedObject?, relativePath: String,
        rules: CacheFreshnessRules, sourceWidth: Int = 0, sourceHeight: Int = 0, score: Double? = nil
    ) {
        var retention = previous?.retainUntil
        if let retainUntil, retention.map({ $0 < retainUntil }) ?? true {
            retention = rules.roundedRetention(retainUntil)
        }
        self.init(
            key: key, sourceURL: sourceURL, variant: variant, width: width, height: height, bytes: byteCount,
            format: format, fileExtension: format.fileExtension, contentSHA256: contentSHA256, etag: etag,
            lastModified: lastModified, fetchedAt: now,
            expiresAt: now.addingTimeInterval(rules.timeToLive(maxAge: maxAge)).cacheMillisecondPrecision,
            lastUsedAt: now, hits: previous?.hits ?? 0, retainUntil: retention, relativePath: relativePath,
            sourceWidth: sourceWidth > 0 ? sourceWidth : nil, sourceHeight: sourceHeight > 0 ? sourceHeight : nil)
        self.score = score
    }

    /// The object after the origin answered 304: its new validators, fresh from now, used now, and retained to
    /// cover `retainUntil`.
    mutating func revalidate(
        etag: String?, lastModified: String?, maxAge: Duration?, retainUntil: Date?, rules: CacheFreshnessRules
    ) {
        let now = rules.now.cacheMillisecondPrecision
        self.etag = etag ?? self.etag
        self.lastModified = lastModified ?? self.lastModified
        fetchedAt = now
        expiresAt = now.addingTimeInterval(rules.timeToLive(maxAge: maxAge)).cacheMillisecondPrecision
        lastUsedAt = now
        if rules.needsRetention(self, until: retainUntil), let retainUntil {
            self.retainUntil = rules.roundedRetention(retainUntil)
        }
    }
}
