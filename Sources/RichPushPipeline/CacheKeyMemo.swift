import Foundation
import Synchronization
import RichPushCore
import RichPushCache

/// Cache keys by variant name and source URL, so a warm job's media item costs a dictionary lookup instead of the
/// URL's normalization and a SHA-256 (`CacheKey.init`). A key is a function of the two alone (a renderer's variant
/// names each stand for one fixed description), so a remembered key never goes stale.
///
/// Bounded: the table starts over once it holds `capacity` keys or `sourceByteCapacity` bytes of URLs, rather than
/// tracking recency on the hot path.
final class CacheKeyMemo: Sendable {
    /// The source is matched by its bytes, as `CacheKey` reads it: two URLs that differ only in Unicode
    /// normalization have two keys.
    private struct Name: Hashable {
        let variant: String
        let source: ExactString
    }

    private struct Table {
        var keys: [Name: CacheKey] = [:]
        var sourceBytes = 0
    }

    private let table = Mutex(Table())
    let capacity: Int
    let sourceByteCapacity: Int

    init(capacity: Int = 10_000, sourceByteCapacity: Int = 2 << 20) {
        self.capacity = capacity
        self.sourceByteCapacity = sourceByteCapacity
    }

    /// The key remembered for `source` in the variant named `variantName`, or the one `make` computes, remembered.
    func key(source: String, variantName: String, make: () -> CacheKey) -> CacheKey {
        let name = Name(variant: variantName, source: ExactString(source))
        if let key = table.withLock({ $0.keys[name] }) { return key }
        let key = make()
        table.withLock { table in
            if table.keys.count >= capacity || table.sourceBytes + source.utf8.count > sourceByteCapacity {
                table.keys.removeAll(keepingCapacity: true)
                table.sourceBytes = 0
            }
            if table.keys.updateValue(key, forKey: name) == nil { table.sourceBytes += source.utf8.count }
        }
        return key
    }

    /// Keys held now (tests check the bound with it).
    var count: Int { table.withLock { $0.keys.count } }
}
