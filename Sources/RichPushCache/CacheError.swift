import Foundation
import RichPushCore

/// Errors from the media cache. Descriptions name the path or key and the reason; `code` is stable for JSON output.
public enum CacheError: RichPushError, Equatable {
    /// A file-system call failed.
    case io(path: String, reason: String)
    /// Another task or process held the key's lock for longer than `lockWaitTimeout`.
    case lockTimeout(key: String)
    /// The producer threw: a failure worth retrying, so nothing is remembered for it. Producers throw this case
    /// themselves to pass their own stable code through; any other error is reported as `producer_failed`.
    case producerFailed(code: ErrorCode, message: String)
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
        case .producerFailed(_, let message): return message
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
        case .io: return "cache_io"
        case .lockTimeout: return "lock_timeout"
        case .producerFailed(let code, _): return code
        case .deadlineExceeded: return .deadlineExceeded
        case .cancelled: return .cancelled
        case .invalidConfiguration: return "invalid_configuration"
        case .invalidProduction: return "invalid_production"
        case .objectStorage: return "object_storage"
        case .leaseUnavailable: return "lease_unavailable"
        }
    }
}
