import Foundation
import RichPushCore

/// Phase timings of a transfer, each measured from the start of the (last) attempt.
package struct FetchTimings: Sendable, Hashable {
    package var nameLookup: Duration
    package var connect: Duration
    package var tlsHandshake: Duration
    package var firstByte: Duration
    package var total: Duration

    package init(nameLookup: Duration = .zero, connect: Duration = .zero, tlsHandshake: Duration = .zero,
                firstByte: Duration = .zero, total: Duration = .zero) {
        self.nameLookup = nameLookup
        self.connect = connect
        self.tlsHandshake = tlsHandshake
        self.firstByte = firstByte
        self.total = total
    }
}

/// A successful fetch: a 2xx body, or a 304 answer to a conditional request (`isNotModified`, empty body).
package struct FetchedMedia: Sendable {
    package var status: Int
    package var finalURL: String
    package var body: Data
    /// The format the body's first bytes show (`AttachmentSniffer`), sniffed once by the fetcher as the body
    /// arrived (the same look that chose its byte cap): what the pipeline and the image decoders go by. Nil when
    /// the table has no such format, and for a 304.
    package var format: AttachmentFormat?
    /// As sent by the origin; informational only (`format` comes from the bytes).
    package var contentType: String?
    package var etag: String?
    package var lastModified: String?
    /// `Cache-Control: max-age` in seconds, when present (`no-store`/`no-cache` give 0).
    package var maxAge: Int?
    package var isNotModified: Bool
    package var redirectCount: Int
    package var timings: FetchTimings
    /// Attempts made (2 when the one retry was used).
    package var attempts: Int

    package init(status: Int, finalURL: String, body: Data, format: AttachmentFormat?, contentType: String? = nil, etag: String? = nil,
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
