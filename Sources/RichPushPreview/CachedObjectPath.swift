import Foundation
import RichPushCache
import RichPushCore

/// The cache key and file extension named by a cached URL's last four path segments,
/// `objects/ab/cd/<64 hex digits>.<jpg|png|gif>`, and nothing else.
///
/// The preview reads objects only through the store, by this key; a URL with `..`, percent-escapes, backslashes, a
/// query, a shard that does not match its digest, a metadata `.json` or any other name is refused, so no URL can
/// name a file outside the cache's objects. Costs one scan of the URL.
package struct CachedObjectPath: Sendable, Hashable {
    package let key: CacheKey
    package let fileExtension: String

    package init?(cachedURL: String) {
        guard !cachedURL.contains(where: { "?#%\\\0".contains($0) }) else { return nil }
        let segments = cachedURL.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count >= 4 else { return nil }
        let tail = segments.suffix(4).map(String.init)
        let parts = tail[3].split(separator: ".", omittingEmptySubsequences: false)
        guard tail[0] == "objects", parts.count == 2, let key = CacheKey(hexDigest: String(parts[0])),
            CacheObjectFormat.allCases.contains(where: { $0.isPublished && $0.fileExtension == parts[1] }),
            key.shardPath == tail[1] + "/" + tail[2]
        else { return nil }
        self.key = key
        fileExtension = String(parts[1])
    }
}
