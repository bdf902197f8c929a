import Foundation

extension FileMediaStore {
    /// One pass over every sidecar and negative entry plus the shared counters file; cost grows with the store.
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
        let counters = try CacheUsageCounters.read(layout: disk.layout)
        statistics.hits = counters.hits
        statistics.misses = counters.misses
        statistics.revalidations = counters.revalidations
        statistics.negativeHits = counters.negativeHits
        return statistics
    }
}
