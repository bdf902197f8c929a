import Foundation
import RichPushCore

/// The metadata sidecar of one published object (`objects/ab/cd/<key>.json`), written after the object itself.
public struct CachedObject: Sendable, Hashable, Codable {
    public var key: CacheKey
    public var sourceURL: String
    public var variant: String
    public var width: Int
    public var height: Int
    /// The source image's upright (EXIF-oriented) size before rendering, so author warnings (an upscaled or heavily
    /// cropped image) hold on a cache hit too; nil for audio and video and for records written before it was kept.
    public var sourceWidth: Int?
    public var sourceHeight: Int?
    /// Size of the object file; readers treat the object as absent unless the file has exactly this size.
    public var bytes: Int
    /// The published format (stored as its name: `jpeg`, `png`, `gif`, `mp4`, ...). A sidecar naming any other
    /// format does not decode, so the store reads it as absent.
    package var format: CacheObjectFormat
    /// The real format's extension (`jpg`, `png`, `gif`); device extensions pick the type from it.
    public var fileExtension: String
    public var contentSHA256: String
    public var etag: String?
    public var lastModified: String?
    public var fetchedAt: Date
    /// Fresh until this instant; after it the producer is asked to revalidate.
    public var expiresAt: Date
    /// Updated on hits at most once per `usageWriteInterval`; GC evicts the least recently used first.
    public var lastUsedAt: Date
    public var hits: Int
    /// Latest push expiration among the jobs that used the object; GC never deletes it before then.
    public var retainUntil: Date?
    /// Path below the root and below the public base URL, e.g. `objects/ab/cd/<key>.jpg`.
    public var relativePath: String
    /// The SSIMULACRA2 score of a JPEG whose quality was searched for a target; absent otherwise (and in sidecars
    /// written before scores existed).
    public var score: Double?

    package init(
        key: CacheKey, sourceURL: String, variant: String, width: Int, height: Int, bytes: Int, format: CacheObjectFormat,
        fileExtension: String, contentSHA256: String, etag: String?, lastModified: String?, fetchedAt: Date,
        expiresAt: Date, lastUsedAt: Date, hits: Int, retainUntil: Date?, relativePath: String,
        sourceWidth: Int? = nil, sourceHeight: Int? = nil
    ) {
        self.key = key
        self.sourceURL = sourceURL
        self.variant = variant
        self.width = width
        self.height = height
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.bytes = bytes
        self.format = format
        self.fileExtension = fileExtension
        self.contentSHA256 = contentSHA256
        self.etag = etag
        self.lastModified = lastModified
        self.fetchedAt = fetchedAt
        self.expiresAt = expiresAt
        self.lastUsedAt = lastUsedAt
        self.hits = hits
        self.retainUntil = retainUntil
        self.relativePath = relativePath
    }

    /// Whether this record describes `key`'s own object: the same key, a publishable format whose extension it
    /// carries, and the path the layout gives that key and extension. Stores read any other record as absent, so no
    /// path taken from a tampered record is ever served or deleted.
    func describesOwnObject(of key: CacheKey) -> Bool {
        self.key == key && format.fileExtension == fileExtension
            && relativePath == CacheLayout.relativeObjectPath(key, fileExtension: fileExtension)
    }

    /// True while `now` is before `expiresAt`.
    public func isFresh(at now: Date) -> Bool { now < expiresAt }
}
