import Foundation

/// Where an object-storage store lives, how the CDN serves it, and its time limits (the same defaults as the
/// file store's `CacheConfiguration`).
public struct ObjectStorageConfiguration: Sendable {
    public var location: ObjectStorageLocation
    /// Base URL the CDN serves the bucket's prefix under. No query or fragment.
    public var publicBaseURL: String
    public var defaultTTL: Duration = CacheFreshnessRules.defaultTTL
    public var maximumTTL: Duration = CacheFreshnessRules.defaultMaximumTTL
    public var negativeTTL: Duration = CacheFreshnessRules.defaultNegativeTTL
    public var retentionGranularity: Duration = CacheFreshnessRules.defaultRetentionGranularity
    /// Longest wait for another host that holds a key's lease.
    public var leaseWaitTimeout: Duration = .seconds(30)
    /// A fresh object (or a live failure) read from storage is answered from memory for this long before it is
    /// read again; each read is a request, and objects are immutable under their key until they go stale.
    public var memoryHitDuration: Duration = .seconds(30)
    /// Time limit of each request made outside a job (start-up check, stats, GC, verify).
    public var maintenanceRequestTimeout: Duration = .seconds(30)
    /// An object without metadata younger than this is a publish in progress, not an orphan.
    public var orphanMinimumAge: Duration = .seconds(3_600)
    /// The time every freshness, TTL, retention, GC and wait decision reads; tests pass a clock they move.
    package var clock: any CacheClock = SystemCacheClock()

    public init(location: ObjectStorageLocation, publicBaseURL: String) {
        self.location = location
        self.publicBaseURL = publicBaseURL
    }

    var rules: CacheFreshnessRules {
        CacheFreshnessRules(
            defaultTTL: defaultTTL, maximumTTL: maximumTTL, negativeTTL: negativeTTL,
            retentionGranularity: retentionGranularity, clock: clock)
    }
}
