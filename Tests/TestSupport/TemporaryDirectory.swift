import Foundation
import XCTest

/// Fresh folders under the system temporary directory, named `richpush-<purpose>-<UUID>` so a leaked one says
/// which test or tool made it.
public enum TemporaryDirectory {
    /// Creates a new, empty folder; the caller removes it with `remove(_:)` when done.
    public static func make(_ purpose: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-\(purpose)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Removes a folder and everything in it; a folder that is already gone is not an error.
    public static func remove(_ url: URL) {
        try? FileManager.default.removeItem(at: url)
    }
}

extension XCTestCase {
    /// A new, empty folder that is removed when this test ends, whether it passes, fails or throws (a teardown
    /// block, so it also works when called from `setUp`).
    public func makeTemporaryDirectory(_ purpose: String = "test") throws -> URL {
        let url = try TemporaryDirectory.make(purpose)
        addTeardownBlock { TemporaryDirectory.remove(url) }
        return url
    }
}
