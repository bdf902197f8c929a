import Foundation

extension FileMediaStore {
    /// One pass over every sidecar and negative entry plus the shared counters file; cost grows with the store.
    static func scanStatistics(_ disk: CacheDisk) async throws(CacheError) -> CacheStatistics {
        var statistics = CacheStatistics()
        let now = disk.rules.now
        for shard in CacheScan.shards(of: disk.layout.objectsDirectory, named: "objects") {
            for name in shard.names where name.hasSuffix(".json") {
                guard let key = CacheScan.key(ofFileNamed: name), let object = try disk.readObject(key) else {
                    continue
                }
                statistics.count(object, now: now)
            }
        }
        for shard in CacheScan.shards(of: disk.layout.negativeDirectory, named: "negative") {
            for name in shard.names where name.hasSuffix(".json") {
                guard let key = CacheScan.key(ofFileNamed: name), let failure = try disk.readFailure(key) else {
                    continue
                }
                statistics.count(failure, now: now)
            }
        }
        let counters = try CacheUsageCounters.read(layout: disk.layout)
        statistics.count(counters)
        return statistics
    }
}
