import Foundation
import RichPushHTTP
import RichPushPayload

/// The enricher's media stage: what becomes of each distinct (source, variant) of a job. `CachedMediaRenderer`
/// fetches and renders into the cache; `UnfetchedMedia` fetches nothing, for `validate --no-fetch`. The rules around
/// them (invalid references, one render per source, the deadline, the payload rewrite, the status) live once, in
/// `Enricher`.
protocol MediaStage: Sendable {
    /// One source to answer for in one variant, prepared once per job.
    associatedtype Item: Sendable

    /// Whether results come from fetching; a job whose stage fetches nothing was not enriched (`passthrough`).
    var fetchesMedia: Bool { get }

    func item(source: String, pointer: String, variantName: String) -> Item

    /// The result available without a task or a wait (a warm cache), or the item to render.
    func look(_ item: Item, retainUntil: Date) async -> MediaLook<Item>

    /// The one-fetch-per-source memo for a job's items still to render (`SourceFetches`), or nil when no source is
    /// rendered in more than one variant.
    func sharedFetches(for items: [Item]) -> SourceFetches?

    /// Renders `item`, as `look` gave it back (carrying what the look read, so that the cache is not read again
    /// before its lock); its fetches count against `owner`'s connections to the source's host, and a source
    /// `fetches` shares is fetched once for all its variants.
    func render(_ item: Item, retainUntil: Date, deadline: ContinuousClock.Instant, owner: FetchOwner,
                fetches: SourceFetches?) async -> MediaResult
}

/// The media stage of a structure check: every reference answers at once that it was not fetched, so the payload
/// keeps its URLs as written and nothing touches the network or the cache.
struct UnfetchedMedia: MediaStage {
    struct Item: Sendable {
        let source: String
        let pointer: String
        let variantName: String
    }

    var fetchesMedia: Bool { false }

    func item(source: String, pointer: String, variantName: String) -> Item {
        Item(source: source, pointer: pointer, variantName: variantName)
    }

    func look(_ item: Item, retainUntil: Date) async -> MediaLook<Item> { .answered(result(for: item)) }

    func sharedFetches(for items: [Item]) -> SourceFetches? { nil }

    func render(_ item: Item, retainUntil: Date, deadline: ContinuousClock.Instant, owner: FetchOwner,
                fetches: SourceFetches?) async -> MediaResult {
        result(for: item)
    }

    private func result(for item: Item) -> MediaResult {
        MediaResult(
            pointer: item.pointer, source: item.source, variant: item.variantName, outcome: .notFetched, milliseconds: 0)
    }
}

/// What a media stage's look at an item found.
enum MediaLook<Item: Sendable>: Sendable {
    case answered(MediaResult)
    /// The item still to render, carrying what the look read.
    case pending(Item)
}
