import Foundation

/// Where the store lives, how it is served, and its time limits.
public struct CacheConfiguration: Sendable {
    /// Root directory holding `objects/`, `negative/`, `tmp/`, `locks/` and `quarantine/`.
    public var root: URL
    /// Base URL the CDN serves `root` under, e.g. `https://cdn.example.com/media`. No query or fragment.
    public var publicBaseURL: String
    /// Freshness of an object when the origin gave no max-age.
    public var defaultTTL: Duration = CacheFreshnessRules.defaultTTL
    /// Cap on the origin's max-age.
    public var maximumTTL: Duration = CacheFreshnessRules.defaultMaximumTTL
    /// How long a failure is remembered.
    public var negativeTTL: Duration = CacheFreshnessRules.defaultNegativeTTL
    /// Longest wait for another task or process that holds a key's lock.
    public var lockWaitTimeout: Duration = .seconds(30)
    /// Hits and last-used times are written to a sidecar at most this often per key and process, and only when the
    /// sidecar's recorded last use is at least this old (so it is also the precision of LRU); a sidecar rewrite
    /// costs a small file write, an fsync and a rename.
    public var usageWriteInterval: Duration = .seconds(60)
    /// Unrecognised files in `tmp/` older than this are removed by GC and verify.
    public var temporaryFileMaximumAge: Duration = .seconds(3_600)
    /// `retainUntil` is rounded up to a multiple of this, so a burst of jobs with nearby expirations rewrites the
    /// sidecar once instead of once per job. Rounding up only ever retains longer (here by under an hour); with a
    /// finer step, every job that expires a little later than the last one costs a sidecar rewrite and an fsync.
    public var retentionGranularity: Duration = CacheFreshnessRules.defaultRetentionGranularity
    /// A fresh object (or a live failure) this process has read or published is answered from memory for this long,
    /// with no `stat`; an entry that another process deletes meanwhile may be handed out for that long. Zero checks
    /// the disk on every request.
    public var memoryHitDuration: Duration = .seconds(1)
    /// The time every freshness, TTL, retention, GC and wait decision reads; tests pass a clock they move.
    package var clock: any CacheClock = SystemCacheClock()

    /// The other settings start at their defaults above; set them on the value.
    public init(root: URL, publicBaseURL: String) {
        self.root = root
        self.publicBaseURL = publicBaseURL
    }

    var rules: CacheFreshnessRules {
        CacheFreshnessRules(
            defaultTTL: defaultTTL, maximumTTL: maximumTTL, negativeTTL: negativeTTL,
            retentionGranularity: retentionGranularity, clock: clock)
    }
}
