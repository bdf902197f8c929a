import Foundation

/// Paths of everything under the cache root. Keys are validated hex digests, so no path built here can escape the
/// root.
struct CacheLayout: Sendable {
    let root: String

    init(root: URL) {
        var path = root.standardizedFileURL.path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        self.root = path
    }

    var objectsDirectory: String { root + "/objects" }
    var negativeDirectory: String { root + "/negative" }
    var temporaryDirectory: String { root + "/tmp" }
    var locksDirectory: String { root + "/locks" }
    var quarantineDirectory: String { root + "/quarantine" }
    var retiredDirectory: String { root + "/retired" }
    var countersPath: String { root + "/counters.json" }
    var countersLockPath: String { root + "/locks/counters.lock" }

    func relativeObjectPath(_ key: CacheKey, fileExtension: String) -> String {
        "objects/\(key.shardPath)/\(key.hexDigest).\(fileExtension)"
    }

    func objectDirectory(_ key: CacheKey) -> String { objectsDirectory + "/" + key.shardPath }
    func sidecarPath(_ key: CacheKey) -> String { objectDirectory(key) + "/\(key.hexDigest).json" }
    func negativeDirectory(_ key: CacheKey) -> String { negativeDirectory + "/" + key.shardPath }
    func negativePath(_ key: CacheKey) -> String { negativeDirectory(key) + "/\(key.hexDigest).json" }
    /// Record of an object file that a re-render in another format replaced while jobs still reference it.
    func retiredPath(_ key: CacheKey, fileExtension: String) -> String {
        retiredDirectory + "/\(key.shardPath)/\(key.hexDigest).\(fileExtension).json"
    }
    func lockPath(_ key: CacheKey) -> String { locksDirectory + "/\(key.hexDigest).lock" }
    func absolutePath(_ relativePath: String) -> String { root + "/" + relativePath }

    /// A fresh temporary file name. Names start with the key so `verify` can tell (by trying the key's lock)
    /// whether a live writer still owns the file.
    func temporaryPath(for key: CacheKey, kind: String) -> String {
        temporaryDirectory + "/\(key.hexDigest).\(CacheFileSystem.uniqueSuffix()).\(kind).part"
    }

    func temporaryPath(named name: String) -> String {
        temporaryDirectory + "/\(name).\(CacheFileSystem.uniqueSuffix()).part"
    }
}
