/// One media URL found in a notification.
public struct MediaReference: Sendable, Hashable {
    public enum Role: Sendable, Hashable {
        case attachment
        case storyPage(index: Int)
    }

    /// RFC 6901 pointer into the *output APNs payload* (before rendering drops anything) where the URL lives; a story
    /// page is numbered as the sender numbered it (`role` holds its index after invalid pages were dropped).
    /// It is also the key of `APNsRenderer.render`'s media map.
    public var pointer: String
    public var url: String
    public var role: Role
    /// "attachment", "story", or the variant the job named in its envelope (`variant`).
    public var variantName: String
    /// Why the URL cannot be fetched (`ftp:`, `data:`, relative, control characters, ...), or nil. Such a reference
    /// is never fetched: it fails with `media_url_invalid` and is removed from the device payload.
    public var invalidReason: String?

    public init(pointer: String, url: String, role: Role, variantName: String, invalidReason: String? = nil) {
        self.pointer = pointer
        self.url = url
        self.role = role
        self.variantName = variantName
        self.invalidReason = invalidReason
    }
}
