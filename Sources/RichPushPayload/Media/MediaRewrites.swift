/// What the renderer changed for media, so the shortener can undo the cheapest parts first when the payload is too
/// large: the original-URL keys it added (`--source-keys`), then the cached URLs that replaced shorter originals.
struct MediaRewrites {
    /// One media URL the renderer replaced by its cached copy.
    struct Rewrite {
        /// Where the cached URL is in the rendered payload.
        var pointer: String
        var cachedURL: String
        var originalURL: String
    }

    /// Pointers of the added original-URL keys, in the order they were added.
    private(set) var sourceKeys: [String] = []
    var media: [Rewrite] = []

    mutating func addSourceKey(_ pointer: String) {
        if !sourceKeys.contains(pointer) { sourceKeys.append(pointer) }
    }
}
