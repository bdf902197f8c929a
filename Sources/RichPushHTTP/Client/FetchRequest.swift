import RichPushCore
/// One media download, bounded by an absolute deadline (the job's remaining budget).
package struct FetchRequest: Sendable {
    package var url: String
    package var deadline: ContinuousClock.Instant
    /// A cached ETag; sent as `If-None-Match`.
    package var ifNoneMatch: String?
    /// A cached Last-Modified value; sent as `If-Modified-Since`.
    package var ifModifiedSince: String?
    /// The kinds of media this reference may be (`AttachmentSniffer` on the first bytes); another kind fails with
    /// `media_kind_not_accepted` as soon as its first bytes arrive. A story page accepts images only.
    package var acceptedKinds: Set<AttachmentKind>
    /// The job the fetch is for; its transfers to one host share `maximumConnectionsPerHostPerOwner` connections and
    /// the rest wait their turn. Nil: only the per-host limit applies.
    package var owner: FetchOwner?

    package init(url: String, deadline: ContinuousClock.Instant, ifNoneMatch: String? = nil, ifModifiedSince: String? = nil,
                acceptedKinds: Set<AttachmentKind> = Set(AttachmentKind.allCases), owner: FetchOwner? = nil) {
        self.url = url
        self.owner = owner
        self.acceptedKinds = acceptedKinds
        self.deadline = deadline
        self.ifNoneMatch = ifNoneMatch
        self.ifModifiedSince = ifModifiedSince
    }
}
