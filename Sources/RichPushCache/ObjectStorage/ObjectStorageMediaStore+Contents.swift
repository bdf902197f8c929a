import Foundation

extension ObjectStorageMediaStore {
    /// One GET of the object under the store's own layout for `object.key`, within the maintenance deadline; nil when
    /// absent or of another size than recorded.
    public func contents(of object: CachedObject) async throws(CacheError) -> Data? {
        guard object.describesOwnObject(of: object.key) else { return nil }
        let relativePath = CacheLayout.relativeObjectPath(object.key, fileExtension: object.fileExtension)
        guard let data = try await client.get(relativePath, deadline: maintenanceDeadline()), data.count == object.bytes
        else { return nil }
        return data
    }
}
