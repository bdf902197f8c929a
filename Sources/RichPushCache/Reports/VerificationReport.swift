import Foundation

/// What `verify` found; paths are relative to the cache root.
package struct VerificationReport: Sendable, Hashable, Codable {
    package var checkedObjects = 0
    package var checkedBytes = 0
    package var healthyObjects = 0
    /// Objects whose size or SHA-256 disagrees with their sidecar (torn or tampered).
    package var mismatchedObjects: [String] = []
    /// Object files without a sidecar (a writer died between the two renames).
    package var orphanObjects: [String] = []
    /// Sidecars whose object file is missing.
    package var orphanSidecars: [String] = []
    /// Sidecars or negative entries that do not decode.
    package var unreadableMetadata: [String] = []
    /// Files in `tmp/` that no live writer owns.
    package var temporaryLeftovers: [String] = []
    /// Keys skipped because a writer held their lock.
    package var skippedInUse: [String] = []
    /// Files moved to `quarantine/` (repair only).
    package var quarantined = 0
    /// Files deleted (repair only).
    package var removed = 0
    package var repaired = false

    /// Number of problems found, whether or not they were repaired.
    package var problemCount: Int {
        mismatchedObjects.count + orphanObjects.count + orphanSidecars.count + unreadableMetadata.count
            + temporaryLeftovers.count
    }
}
