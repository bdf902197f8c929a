import Foundation

extension FileMediaStore {
    /// Reads the object file named by the store's own layout for `object.key` (never a path taken from the record
    /// itself), whole, with one `open` and `read` loop; nil when absent or of another size than recorded.
    public nonisolated func contents(of object: CachedObject) async throws(CacheError) -> Data? {
        guard object.describesOwnObject(of: object.key) else { return nil }
        let path = disk.layout.absolutePath(CacheLayout.relativeObjectPath(object.key, fileExtension: object.fileExtension))
        guard let data = try CacheFileSystem.readFile(path), data.count == object.bytes else { return nil }
        return data
    }
}
