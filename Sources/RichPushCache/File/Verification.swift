import Foundation
import RichPushCore

extension FileMediaStore {
    /// See `verify(repair:)`. Every key is examined under its lock, taken without waiting, so a writer that is
    /// publishing right now is skipped rather than mistaken for damage.
    static func runVerification(_ disk: CacheDisk, repair: Bool) async throws(CacheError) -> VerificationReport {
        var report = VerificationReport()
        report.repaired = repair
        let layout = disk.layout
        let quarantine = CacheQuarantine(layout: layout)

        for shard in CacheScan.shards(of: layout.objectsDirectory, named: "objects") {
            var namesByKey: [CacheKey: [String]] = [:]
            for name in shard.names {
                guard let key = CacheScan.key(ofFileNamed: name) else { continue }
                namesByKey[key, default: []].append(name)
            }
            for (key, names) in namesByKey.sorted(by: { $0.key.hexDigest < $1.key.hexDigest }) {
                guard let lock = try CacheFileLock.attempt(layout.lockPath(key)) else {
                    report.skippedInUse.append(key.hexDigest)
                    continue
                }
                defer { lock.release() }
                let sidecarName = key.hexDigest + ".json"
                var objectNames = Set(names.filter { $0 != sidecarName })
                func relative(_ name: String) -> String { shard.relativePath + "/" + name }

                if names.contains(sidecarName) {
                    let sidecarRelative = relative(sidecarName)
                    guard let object = try disk.readSidecar(key),
                        object.relativePath == layout.relativeObjectPath(key, fileExtension: object.fileExtension)
                    else {
                        report.unreadableMetadata.append(sidecarRelative)
                        if repair { try quarantine.move(sidecarRelative, report: &report) }
                        for name in objectNames.sorted() {
                            report.orphanObjects.append(relative(name))
                            if repair { try quarantine.move(relative(name), report: &report) }
                        }
                        continue
                    }
                    let objectName = (object.relativePath as NSString).lastPathComponent
                    if objectNames.remove(objectName) == nil {
                        report.orphanSidecars.append(sidecarRelative)
                        if repair, CacheFileSystem.remove(layout.absolutePath(sidecarRelative)) { report.removed += 1 }
                    } else {
                        report.checkedObjects += 1
                        let digest = try SHA256.hexDigest(ofFileAt: layout.absolutePath(object.relativePath))
                        report.checkedBytes += digest.bytes
                        if digest.bytes == object.bytes && digest.hexDigest == object.contentSHA256 {
                            report.healthyObjects += 1
                        } else {
                            report.mismatchedObjects.append(object.relativePath)
                            if repair {
                                // Sidecar first, so the object reads as absent at every step.
                                try quarantine.move(sidecarRelative, report: &report)
                                try quarantine.move(object.relativePath, report: &report)
                            }
                        }
                    }
                }
                // Files kept for jobs that still reference them after a re-render in another format.
                for retired in try disk.readRetired(key) {
                    objectNames.remove((retired.relativePath as NSString).lastPathComponent)
                }
                for name in objectNames.sorted() {
                    report.orphanObjects.append(relative(name))
                    if repair, CacheFileSystem.remove(layout.absolutePath(relative(name))) { report.removed += 1 }
                }
            }
        }

        for shard in CacheScan.shards(of: layout.negativeDirectory, named: "negative") {
            for name in shard.names.sorted() {
                guard let key = CacheScan.key(ofFileNamed: name), name == key.hexDigest + ".json" else { continue }
                guard try disk.readFailure(key) == nil else { continue }
                guard let lock = try CacheFileLock.attempt(layout.lockPath(key)) else { continue }
                defer { lock.release() }
                guard try disk.readFailure(key) == nil else { continue }
                let relativePath = shard.relativePath + "/" + name
                report.unreadableMetadata.append(relativePath)
                if repair, CacheFileSystem.remove(layout.absolutePath(relativePath)) { report.removed += 1 }
            }
        }

        let now = disk.rules.now
        for name in CacheFileSystem.list(layout.temporaryDirectory).sorted() {
            let path = layout.temporaryDirectory + "/" + name
            let relativePath = "tmp/" + name
            if let key = CacheScan.key(ofFileNamed: name) {
                // Only a writer holding the key's lock writes `tmp/<key>.*`: if the lock is free, nobody owns it.
                guard let lock = try CacheFileLock.attempt(layout.lockPath(key)) else { continue }
                defer { lock.release() }
                guard CacheFileSystem.status(path) != nil else { continue }
            } else {
                guard let status = CacheFileSystem.status(path),
                    now.timeIntervalSince(status.modifiedAt) > disk.configuration.temporaryFileMaximumAge.timeInterval
                else { continue }
            }
            report.temporaryLeftovers.append(relativePath)
            if repair, CacheFileSystem.remove(path) { report.removed += 1 }
        }
        return report
    }
}
