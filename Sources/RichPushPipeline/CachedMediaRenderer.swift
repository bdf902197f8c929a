import Foundation
import RichPushCore
import RichPushPayload
import RichPushImaging
import RichPushHTTP
import RichPushCache

/// Turns one source URL into a published cache object: fetch, render, store, through the store's single-flight.
///
/// Cost: on a cache hit, one metadata read, or none when the store remembers the key. On a miss, one fetch (bounded
/// by the byte cap of the kind its first bytes show: 10 MB images, 5 MB audio, 50 MB video by default), one decode,
/// resize and encode (none for audio, video and GIF, which pass through), and two atomic file writes. Permanent
/// failures (4xx, blocked addresses, invalid images; each error's `isPermanent`) are remembered as negative entries;
/// transient ones (deadline, stall, connection) and faults of our own (`isLocalFault`) are not.
struct CachedMediaRenderer: MediaStage {
    let fetcher: Fetcher
    let imaging: ImagePipeline
    let store: any MediaStore
    /// Each configured variant with its cache description, which is part of every cache key, so it is built once.
    private let variants: [String: (variant: ImageVariant, description: String)]
    private let fallbackVariant: (variant: ImageVariant, description: String)
    private let concealsUnreachableHostCause: Bool
    private let keys = CacheKeyMemo()

    init(fetcher: Fetcher, imaging: ImagePipeline, store: any MediaStore, configuration: EnricherConfiguration) {
        self.fetcher = fetcher
        self.imaging = imaging
        self.store = store
        self.variants = configuration.variants.mapValues { ($0, $0.cacheDescription) }
        let attachment = configuration.variant(named: VariantName.attachment)
        self.fallbackVariant = (attachment, attachment.cacheDescription)
        self.concealsUnreachableHostCause = configuration.concealsUnreachableHostCause
    }

    var fetchesMedia: Bool { true }

    /// One source to render as one variant, with its cache key; `pointer` is its first reference in the payload.
    struct Item: Sendable {
        let source: String
        let pointer: String
        let variant: ImageVariant
        let key: CacheKey
        /// What `look` read for the key and found nothing to answer with, so that `render` does not read it again.
        var miss: CacheMiss?
        /// What the source may be: a story page and an Android picture or icon show still images, so they accept
        /// images only.
        var acceptedKinds: Set<AttachmentKind> { Self.acceptedKinds(forVariantNamed: variant.name) }

        /// Images only for the story variant (the story screen draws its page as an image) and the Android ones
        /// (`BitmapFactory` decodes images only); every kind elsewhere.
        static func acceptedKinds(forVariantNamed name: String) -> Set<AttachmentKind> {
            [VariantName.story, VariantName.bigPicture, VariantName.largeIcon].contains(name) ? [.image] : Set(AttachmentKind.allCases)
        }
    }

    /// The item for `source` in the variant named `variantName` (`attachment` when there is none by that name).
    /// Costs a lookup in the renderer's key memo, or once per source and variant one SHA-256 of the normalized URL
    /// and the variant's description.
    func item(source: String, pointer: String, variantName: String) -> Item {
        let (variant, description) = variants[variantName] ?? fallbackVariant
        let key = keys.key(source: source, variantName: variantName) {
            CacheKey(sourceURL: source, variant: description, rendererVersion: ImagePipeline.rendererVersion)
        }
        return Item(source: source, pointer: pointer, variant: variant, key: key)
    }

    /// The result a warm cache gives at once (`MediaStore.look`), or the item to render with what the look read.
    func look(_ item: Item, retainUntil: Date) async -> MediaLook<Item> {
        switch await store.look(for: item.key, retainUntil: retainUntil) {
        case .answered(let outcome):
            return .answered(result(for: outcome, item: item, milliseconds: 0))
        case .missed(let miss):
            var item = item
            item.miss = miss
            return .pending(item)
        }
    }

    /// The sources of `items` that more than one variant renders, each fetched for every kind its variants accept.
    func sharedFetches(for items: [Item]) -> SourceFetches? {
        var variants: [ExactString: Int] = [:], kinds: [ExactString: Set<AttachmentKind>] = [:]
        for item in items {
            let source = ExactString(item.source)
            variants[source, default: 0] += 1
            kinds[source, default: []].formUnion(item.acceptedKinds)
        }
        let shared = kinds.filter { variants[$0.key, default: 0] > 1 }
        return shared.isEmpty ? nil : SourceFetches(acceptedKinds: shared)
    }

    func render(_ item: Item, retainUntil: Date, deadline: ContinuousClock.Instant, owner: FetchOwner,
                fetches: SourceFetches?) async -> MediaResult {
        let started = ContinuousClock.now
        func elapsed() -> Int { Int((ContinuousClock.now - started) / .milliseconds(1)) }
        let fetcher = self.fetcher
        let imaging = self.imaging
        let (source, variant, acceptedKinds) = (item.source, item.variant, item.acceptedKinds)
        do {
            let request = CacheRequest(
                key: item.key, sourceURL: source, variant: variant.name, retainUntil: retainUntil, deadline: deadline
            ) { stale in
                try await Self.produce(
                    source: source, variant: variant, acceptedKinds: acceptedKinds, stale: stale, deadline: deadline,
                    owner: owner, fetcher: fetcher, fetches: fetches, imaging: imaging)
            }
            // The look's miss lets the store go on from what it read, to its lock and re-check.
            let outcome = try await store.object(for: request, after: item.miss)
            return result(for: outcome, item: item, milliseconds: elapsed())
        } catch {
            // Transient failures (deadline, stall, connection) are not remembered; a deadline is a skip, not a fault.
            let deadlinePassed = ContinuousClock.now >= deadline || Task.isCancelled
            // The fetcher and the renderer may give up a moment before the deadline (timer granularity), and pass
            // their own code through the cache: judge by the code, not only by the clock.
            let skipped = deadlinePassed || error.code == .deadlineExceeded || error.code == .cancelled
            return MediaResult(
                pointer: item.pointer, source: source, variant: variant.name,
                outcome: skipped ? .skipped(reason: error.description) : .failed(reported(error, source: source)),
                milliseconds: elapsed())
        }
    }

    private func result(for outcome: CacheOutcome, item: Item, milliseconds: Int) -> MediaResult {
        let media: MediaOutcome
        switch outcome {
        case .hit(let object), .revalidated(let object):
            media = .published(published(object), .cached)
        case .produced(let object):
            media = .published(published(object), object.format.passesThrough ? .passedThrough : .rendered)
        case .failed(let failure, _):
            media = .failed(reported(failure.error, source: item.source))
        }
        return MediaResult(
            pointer: item.pointer, source: item.source, variant: item.variant.name, outcome: media,
            milliseconds: milliseconds)
    }

    /// `error` as the result reports it: with `concealsUnreachableHostCause`, an unresolvable and a blocked host
    /// alike, whether the failure is fresh or remembered.
    private func reported(_ error: any RichPushError, source: String) -> any RichPushError {
        concealsUnreachableHostCause ? UnreachableHostError.concealing(error, url: source) : error
    }

    /// The payload's view of a stored object. Audio and video have no dimensions: it carries none rather than 0x0.
    private func published(_ object: CachedObject) -> PublishedMedia {
        PublishedMedia(
            publicURL: store.publicURL(for: object), format: object.format, bytes: object.bytes,
            size: object.width > 0 && object.height > 0 ? PixelSize(width: object.width, height: object.height) : nil,
            sourceSize: object.sourceWidth.flatMap { width in
                object.sourceHeight.map { PixelSize(width: width, height: $0) }
            }, score: object.score)
    }

    /// Runs inside the store's single-flight: at most once per key across all processes sharing the cache.
    /// Audio and video (as the fetcher sniffed them, `FetchedMedia.format`) are published as fetched, never decoded
    /// or re-encoded; everything else goes through the image pipeline with that same format (GIF is validated there
    /// and passes through too). Nothing here sniffs the body again.
    private static func produce(
        source: String, variant: ImageVariant, acceptedKinds: Set<AttachmentKind>, stale: CachedObject?,
        deadline: ContinuousClock.Instant, owner: FetchOwner, fetcher: Fetcher, fetches: SourceFetches?,
        imaging: ImagePipeline
    ) async throws -> CacheProduction {
        let fetch = { @Sendable (kinds: Set<AttachmentKind>) async throws(FetchError) -> FetchedMedia in
            try await fetcher.fetch(FetchRequest(
                url: source, deadline: deadline, ifNoneMatch: stale?.etag, ifModifiedSince: stale?.lastModified,
                acceptedKinds: kinds, owner: owner))
        }
        // A revalidation asks about this key's own object, so it is never the shared fetch.
        let outcome: Result<FetchedMedia, FetchError>
        if stale == nil, let shared = await fetches?.fetched(source, fetch: fetch) {
            outcome = shared
        } else {
            do throws(FetchError) { outcome = .success(try await fetch(acceptedKinds)) } catch { outcome = .failure(error) }
        }
        let fetched: FetchedMedia
        switch outcome {
        case .success(let media): fetched = media
        case .failure(let error): return .failure(error)
        }
        return try await production(
            from: fetched, source: source, variant: variant, acceptedKinds: acceptedKinds, deadline: deadline,
            imaging: imaging)
    }

    /// What a fetch gives the cache: the fetched body passed through, the render of it, or a remembered failure.
    /// Goes by `fetched.format`, the fetcher's sniff; the body is never sniffed again.
    static func production(
        from fetched: FetchedMedia, source: String, variant: ImageVariant, acceptedKinds: Set<AttachmentKind>,
        deadline: ContinuousClock.Instant, imaging: ImagePipeline
    ) async throws -> CacheProduction {
        let maxAge = fetched.maxAge.map { Duration.seconds($0) }
        if fetched.isNotModified {
            return .notModified(etag: fetched.etag, lastModified: fetched.lastModified, maxAge: maxAge)
        }
        if let format = fetched.format, format.kind != .image {
            // The fetcher checked kind and cap on the first bytes; this holds for any fetcher and tiny bodies too.
            guard acceptedKinds.contains(format.kind) else {
                return .failure(FetchError.kindNotAccepted(
                    url: source, kind: format.kind, accepted: acceptedKinds.sorted { $0.rawValue < $1.rawValue }))
            }
            guard format.isAttachable else { return .failure(MediaError.quickTimeWithoutMP4Brand(url: source)) }
            if ISOMediaBrands.formats.values.contains(format), let problem = ISOMediaStructure.problem(with: fetched.body) {
                return .failure(MediaError.corruptMedia(url: source, format: format, problem: problem))
            }
            return .object(
                bytes: fetched.body, format: format, width: 0, height: 0, etag: fetched.etag,
                lastModified: fetched.lastModified, maxAge: maxAge)
        }
        let rendered: RenderedImage
        do {
            rendered = try await imaging.render(fetched.body, sniffed: fetched.format, as: variant, deadline: deadline)
        } catch {
            // The store remembers only what the image itself is (`isPermanent`); a deadline or a fault of ours is retried.
            return .failure(MediaError.image(url: source, error))
        }
        let format = rendered.format.attachmentFormat
        guard format.isPublished else {
            return .failure(MediaError.unpublishableOutput(url: source, format: rendered.format))
        }
        return .object(
            bytes: rendered.bytes, format: format, width: rendered.width, height: rendered.height, etag: fetched.etag,
            lastModified: fetched.lastModified, maxAge: maxAge, sourceWidth: rendered.source.orientedWidth,
            sourceHeight: rendered.source.orientedHeight, score: rendered.score)
    }
}
