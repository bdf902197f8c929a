/// One media download, bounded by an absolute deadline (the job's remaining budget).
public struct FetchRequest: Sendable {
    public var url: String
    public var deadline: ContinuousClock.Instant
    /// A cached ETag; sent as `If-None-Match`.
    public var ifNoneMatch: String?
    /// A cached Last-Modified value; sent as `If-Modified-Since`.
    public var ifModifiedSince: String?

    public init(url: String, deadline: ContinuousClock.Instant, ifNoneMatch: String? = nil, ifModifiedSince: String? = nil) {
        self.url = url
        self.deadline = deadline
        self.ifNoneMatch = ifNoneMatch
        self.ifModifiedSince = ifModifiedSince
    }
}
