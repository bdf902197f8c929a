import Foundation
import RichPushCore

/// Errors from the media cache. Descriptions name the path or key and the reason; `code` is stable for JSON output.
public enum CacheError: RichPushError, Equatable {
    /// A file-system call failed.
    case io(path: String, reason: String)
    /// Another task or process held the key's lock for longer than `lockWaitTimeout`.
    case lockTimeout(key: String)
    /// The producer failed in a way worth retrying (its error is not `isPermanent`), so nothing is remembered for
    /// it; the error's own code, description and classification pass through.
    case producerFailed(any RichPushError)
    /// The producer threw an error that is no `RichPushError` (code `producer_failed`); retried, never remembered.
    case producerThrew(reason: String)
    /// The caller's deadline passed before the key was resolved.
    case deadlineExceeded
    /// The calling task was cancelled.
    case cancelled
    /// The configuration cannot work (for example a public base URL with a query string).
    case invalidConfiguration(reason: String)
    /// The producer returned something the store cannot publish (for example `notModified` with nothing stored).
    case invalidProduction(key: String, reason: String)
    /// An object-storage request failed: the operation, the object key (or bucket), and the service's reason.
    case objectStorage(operation: String, key: String, reason: String)
    /// The lease service (Redis) does not answer.
    case leaseUnavailable(reason: String)

    public var description: String {
        switch self {
        case .io(let path, let reason): return "cache I/O failed on \(path): \(reason)"
        case .lockTimeout(let key): return "timed out waiting for the lock of cache key \(key)"
        case .producerFailed(let error): return error.description
        case .producerThrew(let reason): return "media producer failed: \(reason)"
        case .deadlineExceeded: return "deadline passed before the cache could resolve the media"
        case .cancelled: return "cache request was cancelled"
        case .invalidConfiguration(let reason): return "invalid cache configuration: \(reason)"
        case .invalidProduction(let key, let reason): return "producer result for cache key \(key) is unusable: \(reason)"
        case .objectStorage(let operation, let key, let reason): return "object storage \(operation) \(key) failed: \(reason)"
        case .leaseUnavailable(let reason): return "the lease service does not answer: \(reason)"
        }
    }

    /// Stable snake_case identifier, used in JSON output.
    public var code: ErrorCode {
        switch self {
        case .io: return .cacheIO
        case .lockTimeout: return "lock_timeout"
        case .producerFailed(let error): return error.code
        case .producerThrew: return "producer_failed"
        case .deadlineExceeded: return .deadlineExceeded
        case .cancelled: return .cancelled
        case .invalidConfiguration: return .invalidConfiguration
        case .invalidProduction: return "invalid_production"
        case .objectStorage: return "object_storage"
        case .leaseUnavailable: return "lease_unavailable"
        }
    }

    /// Only a producer's own permanent answer is remembered, and it comes as `CacheProduction.failure`, never thrown;
    /// everything the store throws is worth retrying.
    public var isPermanent: Bool { false }

    /// Our disk and our configuration are ours (`ErrorCode.cacheIO` says why the disk is). A producer's failure is
    /// whatever its error says; lock waits, deadlines, object storage and the lease service are shared services'
    /// answers, not faults of this process.
    public var isLocalFault: Bool {
        switch self {
        case .io, .invalidConfiguration: return true
        case .producerFailed(let error): return error.isLocalFault
        case .lockTimeout, .producerThrew, .deadlineExceeded, .cancelled, .invalidProduction, .objectStorage,
             .leaseUnavailable:
            return false
        }
    }

    /// Equal when they say the same: every case's description names all of its values, and a producer's error has
    /// no equality of its own.
    public static func == (lhs: CacheError, rhs: CacheError) -> Bool {
        lhs.code == rhs.code && lhs.description == rhs.description
    }
}

extension ErrorCode {
    /// A cache file-system call failed. It is our fault (`isLocalFault`), never the origin's: the cache's disk, its
    /// permissions and its free space belong to this deployment, so it is logged and counted as a local fault, and
    /// (like every error the store throws) never remembered as a negative entry.
    package static let cacheIO: ErrorCode = "cache_io"
}
