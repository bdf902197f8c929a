import Foundation
import Synchronization

/// Decoded sidecars, keyed by the file's identity, so a warm cache answers a hit with a `stat` instead of a read and
/// a JSON decode (the decode was the largest single cost of a cache hit).
///
/// Sidecars are only ever replaced by rename, which gives the path a new inode, so an unchanged (device, inode,
/// size, mtime) means unchanged contents. Bounded: the memo is emptied when it reaches `capacity` entries.
final class SidecarMemo: Sendable {
    private struct Entry {
        var status: CacheFileSystem.FileStatus
        var object: CachedObject
    }

    private let entries = Mutex<[CacheKey: Entry]>([:])
    private let capacity: Int

    init(capacity: Int = 50_000) {
        self.capacity = capacity
    }

    func object(for key: CacheKey, status: CacheFileSystem.FileStatus) -> CachedObject? {
        entries.withLock { entries in
            guard let entry = entries[key], entry.status == status else { return nil }
            return entry.object
        }
    }

    func remember(_ object: CachedObject, status: CacheFileSystem.FileStatus) {
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[object.key] = Entry(status: status, object: object)
        }
    }
}
