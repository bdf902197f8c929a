import Foundation
import RichPushCore

/// Phase timings of a transfer, each measured from the start of the (last) attempt.
public struct FetchTimings: Sendable, Hashable {
    public var nameLookup: Duration
    public var connect: Duration
    public var tlsHandshake: Duration
    public var firstByte: Duration
    public var total: Duration

    public init(nameLookup: Duration = .zero, connect: Duration = .zero, tlsHandshake: Duration = .zero,
                firstByte: Duration = .zero, total: Duration = .zero) {
        self.nameLookup = nameLookup
        self.connect = connect
        self.tlsHandshake = tlsHandshake
        self.firstByte = firstByte
        self.total = total
    }
}

/// A successful fetch: a 2xx body, or a 304 answer to a conditional request (`isNotModified`, empty body).
public struct FetchedMedia: Sendable {
    public var status: Int
    public var finalURL: String
    public var body: Data
    /// The format the body's first bytes show (`AttachmentSniffer`), sniffed once by the fetcher as the body
    /// arrived (the same look that chose its byte cap): what the pipeline and the image decoders go by. Nil when
    /// the table has no such format, and for a 304.
    public var format: AttachmentFormat?
    /// As sent by the origin; informational only (`format` comes from the bytes).
    public var contentType: String?
    public var etag: String?
    public var lastModified: String?
    /// `Cache-Control: max-age` in seconds, when present (`no-store`/`no-cache` give 0).
    public var maxAge: Int?
    public var isNotModified: Bool
    public var redirectCount: Int
    public var timings: FetchTimings
    /// Attempts made (2 when the one retry was used).
    public var attempts: Int

    public init(status: Int, finalURL: String, body: Data, format: AttachmentFormat?, contentType: String? = nil, etag: String? = nil,
                lastModified: String? = nil, maxAge: Int? = nil, isNotModified: Bool = false, redirectCount: Int = 0,
                timings: FetchTimings = FetchTimings(), attempts: Int = 1) {
        self.status = status
        self.finalURL = finalURL
        self.body = body
        self.format = format
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
        self.maxAge = maxAge
        self.isNotModified = isNotModified
        self.redirectCount = redirectCount
        self.timings = timings
        self.attempts = attempts
    }
}
