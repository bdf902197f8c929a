import Foundation
import RichPushCore
import RichPushHTTP
import Synchronization

/// One job's sources that more than one of its variants renders (an iOS attachment and an Android big picture of
/// the same campaign photo, an attachment that is also a story page): each is fetched once, and every variant's
/// render reads that one body. The store's single-flight makes one render per cache key; this makes one fetch per
/// source across keys.
///
/// The shared fetch accepts every kind any of its variants accepts, and each variant's production checks its own
/// (`CachedMediaRenderer.production`), so a story page still refuses the video an attachment of the same URL takes.
/// A revalidation (a stale object's `If-None-Match`) is its key's own and is never shared. The body is held until
/// the job ends: at most the fetcher's byte cap per shared source.
final class SourceFetches: Sendable {
    /// The kinds each shared source is fetched for, by the source's bytes.
    let acceptedKinds: [ExactString: Set<AttachmentKind>]
    private let fetches = Mutex<[ExactString: Task<Result<FetchedMedia, FetchError>, Never>]>([:])

    init(acceptedKinds: [ExactString: Set<AttachmentKind>]) {
        self.acceptedKinds = acceptedKinds
    }

    /// The one fetch of `source`, started by the first caller with `fetch` and awaited by the rest; nil when
    /// `source` is not shared, so the caller fetches it as its own. A cancelled caller cancels the fetch: the job's
    /// renders are cancelled together, at its deadline.
    func fetched(
        _ source: String, fetch: @escaping @Sendable (Set<AttachmentKind>) async throws(FetchError) -> FetchedMedia
    ) async -> Result<FetchedMedia, FetchError>? {
        let source = ExactString(source)
        guard let kinds = acceptedKinds[source] else { return nil }
        let task = fetches.withLock { fetches in
            if let task = fetches[source] { return task }
            let task = Task { () async -> Result<FetchedMedia, FetchError> in
                do throws(FetchError) { return .success(try await fetch(kinds)) } catch { return .failure(error) }
            }
            fetches[source] = task
            return task
        }
        return await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
    }
}
