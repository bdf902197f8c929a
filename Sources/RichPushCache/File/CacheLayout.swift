import Foundation

/// Paths of everything under the cache root. Keys are validated hex digests, so no path built here can escape the
/// root.
package struct CacheLayout: Sendable {
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
        Self.relativeObjectPath(key, fileExtension: fileExtension)
    }

    // Paths relative to the root, which are also the object keys below an object-storage prefix.

    static func relativeObjectPath(_ key: CacheKey, fileExtension: String) -> String {
        "objects/\(key.shardPath)/\(key.hexDigest).\(fileExtension)"
    }
    static func relativeSidecarPath(_ key: CacheKey) -> String { "objects/\(key.shardPath)/\(key.hexDigest).json" }
    static func relativeNegativePath(_ key: CacheKey) -> String { "negative/\(key.shardPath)/\(key.hexDigest).json" }
    static func relativeRetiredPath(_ key: CacheKey, fileExtension: String) -> String {
        "retired/\(key.shardPath)/\(key.hexDigest).\(fileExtension).json"
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

    /// Throws `invalidConfiguration` for a public base URL that is not an absolute http(s) URL with a host, or that
    /// carries a query or fragment (device extensions need plain URLs). The stores and the CLI share this one check.
    package static func checkPublicBaseURL(_ base: String) throws(CacheError) {
        guard let components = URLComponents(string: base), let scheme = components.scheme?.lowercased(),
            scheme == "https" || scheme == "http", let host = components.host, !host.isEmpty
        else {
            throw CacheError.invalidConfiguration(
                reason: "public base URL must be an absolute http(s) URL such as https://cdn.example.com/richpush: \(base)")
        }
        guard components.query == nil, components.fragment == nil else {
            throw CacheError.invalidConfiguration(reason: "public base URL must not have a query or fragment")
        }
    }

    /// What every public URL under `base` starts with: `base` without trailing slashes, then `/`. An object's URL is
    /// this and its relative path.
    static func publicURLPrefix(base: String) -> String {
        var base = base
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/"
    }
}
