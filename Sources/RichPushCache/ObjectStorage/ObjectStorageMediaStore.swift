import Foundation
import Synchronization
import RichPushCore

/// A content-addressed media store in an S3-compatible bucket that a CDN serves, for workers on many hosts.
///
/// The keys below the prefix mirror the file store's layout: `objects/ab/cd/<key>.<jpg|png|gif>` (served with its
/// exact `Content-Type` and a year-long immutable `Cache-Control`), its `CachedObject` sidecar
/// `objects/ab/cd/<key>.json` written after it, `negative/ab/cd/<key>.json` and `retired/…` records. Every write is
/// one PUT of a whole object under its final key, which S3 applies all or nothing, so no reader ever sees part of
/// an object; a sidecar exists only after its object does, and GC deletes the sidecar first.
///
/// Single-flight is per process (`SingleFlight`) and, with a `CacheLease` (Redis), across hosts: the host holding
/// a key's lease renders it, the others poll the sidecar until it appears. Without a lease each host may render a
/// key once. Requests share the fetch layer's libcurl multi handle and are signed by libcurl (SigV4).
///
/// Costs: a cold key is two GETs (sidecar, negative entry), the lease and the same two GETs again under it (no more
/// GETs without a lease), the render and two or three PUTs; a warm key is one GET of the sidecar,
/// then nothing for `memoryHitDuration`. Hit counts and last-used times are not written back per hit (that would
/// be a PUT per hit); `lastUsedAt` moves when the sidecar is rewritten (render, revalidation, retention raise).
public final class ObjectStorageMediaStore: MaintainedMediaStore {
    public let configuration: ObjectStorageConfiguration
    /// The caching shared with the file store, over storage requests and leases.
    let cache: CachingStore<ObjectStorageBackend>

    var backend: ObjectStorageBackend { cache.backend }
    var client: ObjectStorageClient { backend.client }
    var lease: (any CacheLease)? { backend.lease }
    var rules: CacheFreshnessRules { backend.rules }

    /// No I/O; call `checkAccess()` before taking jobs. Throws `invalidConfiguration` for a public base URL that is
    /// not http(s) or carries a query or fragment.
    public init(
        configuration: ObjectStorageConfiguration, transport: any ServiceTransport, lease: (any CacheLease)?
    ) throws(CacheError) {
        self.configuration = configuration
        cache = try CachingStore(
            publicBaseURL: configuration.publicBaseURL, memoryHitDuration: configuration.memoryHitDuration,
            clock: configuration.clock
        ) { memory in
            ObjectStorageBackend(
                configuration: configuration,
                client: ObjectStorageClient(location: configuration.location, transport: transport), lease: lease,
                memory: memory)
        }
    }

    package var flightsStarted: Int { cache.flightsStarted }
    package var callersWaiting: Int { cache.callersWaiting }
    package var directoryReads: CacheLookCounts? { nil }

    /// One HEAD on the bucket: throws a single clear error for a missing bucket or refused credentials.
    public func checkAccess() async throws(CacheError) {
        try await client.checkAccess(deadline: maintenanceDeadline())
    }

    public func checkReadiness() async throws(CacheError) {
        try await checkAccess()
        try await lease?.checkAvailability()
    }

    // MARK: MediaStore

    /// After `look`'s miss, memory is asked again, then the resolution reads the sidecar once before the lease and
    /// once under it (only once without a lease).
    public func object(for request: CacheRequest, after miss: CacheMiss?) async throws(CacheError) -> CacheOutcome {
        try await cache.object(for: request, after: miss)
    }

    /// A fresh object (covering `retainUntil`) or a live failure remembered from the last `memoryHitDuration`; no I/O.
    public func look(for key: CacheKey, retainUntil: Date?) async -> CacheLook {
        cache.look(for: key, retainUntil: retainUntil)
    }

    /// The stored object, fresh or stale, read from storage; nil if absent.
    public func lookup(_ key: CacheKey) async throws(CacheError) -> CachedObject? {
        try await backend.readObject(key, deadline: maintenanceDeadline())
    }

    /// `publicBaseURL` without trailing slashes, `/`, and the object's relative path. No I/O.
    public func publicURL(for object: CachedObject) -> String {
        cache.publicURL(for: object)
    }

    // MARK: Memory

    func forget(_ key: CacheKey) {
        cache.memory.forget(key)
    }

    func maintenanceDeadline() -> ContinuousClock.Instant {
        ContinuousClock.now + configuration.maintenanceRequestTimeout
    }
}
