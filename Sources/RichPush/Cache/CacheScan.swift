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

extension FileMediaStore {
    static func scanStatistics(_ disk: CacheDisk) async throws(CacheError) -> CacheStatistics {
        var statistics = CacheStatistics()
        let now = Date()
        for shard in CacheScan.shards(of: disk.layout.objectsDirectory, named: "objects") {
            for name in shard.names where name.hasSuffix(".json") {
                guard let key = CacheScan.key(ofFileNamed: name), let object = try disk.readObject(key) else {
                    continue
                }
                statistics.objectCount += 1
                statistics.totalBytes += object.bytes
                statistics.recordedObjectHits += object.hits
                if !object.isFresh(at: now) { statistics.staleObjectCount += 1 }
                let entry = CacheStatistics.Entry(
                    key: key, sourceURL: object.sourceURL, variant: object.variant, fetchedAt: object.fetchedAt,
                    lastUsedAt: object.lastUsedAt)
                if statistics.oldestEntry.map({ object.fetchedAt < $0.fetchedAt }) ?? true {
                    statistics.oldestEntry = entry
                }
                if statistics.newestEntry.map({ object.fetchedAt > $0.fetchedAt }) ?? true {
                    statistics.newestEntry = entry
                }
            }
        }
        for shard in CacheScan.shards(of: disk.layout.negativeDirectory, named: "negative") {
            for name in shard.names where name.hasSuffix(".json") {
                guard let key = CacheScan.key(ofFileNamed: name), let failure = try disk.readFailure(key) else {
                    continue
                }
                if now < failure.expiresAt {
                    statistics.negativeEntryCount += 1
                } else {
                    statistics.expiredNegativeEntryCount += 1
                }
            }
        }
        let counters = try UsageCounters.read(layout: disk.layout)
        statistics.hits = counters.hits
        statistics.misses = counters.misses
        statistics.revalidations = counters.revalidations
        statistics.negativeHits = counters.negativeHits
        return statistics
    }
}
