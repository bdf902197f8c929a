import Foundation

/// What `verify` found; paths are relative to the cache root.
public struct VerificationReport: Sendable, Hashable, Codable {
    public var checkedObjects = 0
    public var checkedBytes = 0
    public var healthyObjects = 0
    /// Objects whose size or SHA-256 disagrees with their sidecar (torn or tampered).
    public var mismatchedObjects: [String] = []
    /// Object files without a sidecar (a writer died between the two renames).
    public var orphanObjects: [String] = []
    /// Sidecars whose object file is missing.
    public var orphanSidecars: [String] = []
    /// Sidecars or negative entries that do not decode.
    public var unreadableMetadata: [String] = []
    /// Files in `tmp/` that no live writer owns.
    public var temporaryLeftovers: [String] = []
    /// Keys skipped because a writer held their lock.
    public var skippedInUse: [String] = []
    /// Files moved to `quarantine/` (repair only).
    public var quarantined = 0
    /// Files deleted (repair only).
    public var removed = 0
    public var repaired = false

    public init() {}

    /// Number of problems found, whether or not they were repaired.
    public var problemCount: Int {
        mismatchedObjects.count + orphanObjects.count + orphanSidecars.count + unreadableMetadata.count
            + temporaryLeftovers.count
    }
}
