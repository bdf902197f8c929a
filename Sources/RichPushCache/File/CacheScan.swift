import Foundation

/// Walks the two-level shard directories (`objects/ab/cd/`, `negative/ab/cd/`).
struct CacheScan {
    struct Shard {
        /// Absolute directory path.
        var path: String
        /// Path relative to the root, e.g. `objects/ab/cd`.
        var relativePath: String
        var names: [String]
    }

    static func shards(of top: String, named topName: String) -> [Shard] {
        var result: [Shard] = []
        for first in CacheFileSystem.list(top).sorted() where first.count == 2 {
            for second in CacheFileSystem.list(top + "/" + first).sorted() where second.count == 2 {
                let relative = "\(topName)/\(first)/\(second)"
                let path = top + "/" + first + "/" + second
                result.append(Shard(path: path, relativePath: relative, names: CacheFileSystem.list(path)))
            }
        }
        return result
    }

    /// The key a file in a shard belongs to (`<key>.<ext>`), if its name starts with a valid digest.
    static func key(ofFileNamed name: String) -> CacheKey? {
        guard let dot = name.firstIndex(of: ".") else { return nil }
        return CacheKey(hexDigest: String(name[..<dot]))
    }
}
