import Foundation

/// Turns one source URL into a published cache object: fetch, render, store, through the store's single-flight.
///
/// Cost: on a cache hit, one metadata read. On a miss, one fetch (bounded by the fetch configuration's byte
/// cap), one decode, resize and encode, and two atomic file writes. Permanent failures (4xx, blocked addresses,
/// invalid images) are remembered as negative entries; transient ones (deadline, stall, connection) are not.
struct CachedMediaRenderer: Sendable {
    let fetcher: Fetcher
    let imaging: ImagePipeline
    let store: any MediaStore

    func render(
        source: String, pointer: String, variant: ImageVariant, retainUntil: Date, deadline: ContinuousClock.Instant
    ) async -> MediaResult {
        let started = ContinuousClock.now
        func elapsed() -> Int { Int((ContinuousClock.now - started) / .milliseconds(1)) }
        let key = CacheKey(sourceURL: source, variant: variant.cacheDescription, rendererVersion: ImagePipeline.rendererVersion)
        let fetcher = self.fetcher
        let imaging = self.imaging
        do {
            let outcome = try await store.object(
                for: key, sourceURL: source, variant: variant.name, retainUntil: retainUntil, deadline: deadline
            ) { stale in
                try await Self.produce(
                    source: source, variant: variant, stale: stale, deadline: deadline, fetcher: fetcher, imaging: imaging)
            }
            switch outcome {
            case .hit(let object), .revalidated(let object):
                return result(for: object, status: .cached, pointer: pointer, source: source, variant: variant, milliseconds: elapsed())
            case .produced(let object):
                return result(for: object, status: .rendered, pointer: pointer, source: source, variant: variant, milliseconds: elapsed())
            case .failed(let failure, _):
                return MediaResult(
                    pointer: pointer, source: source, variant: variant.name, status: .failed,
                    milliseconds: elapsed(), errorCode: failure.code, errorMessage: failure.message)
            }
        } catch {
            // Transient failures (deadline, stall, connection) are not remembered; a deadline is a skip, not a fault.
            let deadlinePassed = ContinuousClock.now >= deadline || Task.isCancelled
            // The fetcher and the renderer may give up a moment before the deadline (timer granularity), and pass
            // their own code through the cache: judge by the code, not only by the clock.
            let skipped = deadlinePassed || error.code == "deadline_exceeded" || error.code == "cancelled"
            return MediaResult(
                pointer: pointer, source: source, variant: variant.name, status: skipped ? .skipped : .failed,
                milliseconds: elapsed(), errorCode: skipped ? "deadline_exceeded" : error.code,
                errorMessage: error.description)
        }
    }

    private func result(
        for object: CachedObject, status: MediaResult.Status, pointer: String, source: String,
        variant: ImageVariant, milliseconds: Int
    ) -> MediaResult {
        MediaResult(
            pointer: pointer, source: source, variant: variant.name, status: status,
            cachedURL: store.publicURL(for: object), width: object.width, height: object.height,
            bytes: object.bytes, format: object.format, milliseconds: milliseconds)
    }

    /// Runs inside the store's single-flight: at most once per key across all processes sharing the cache.
    private static func produce(
        source: String, variant: ImageVariant, stale: CachedObject?, deadline: ContinuousClock.Instant,
        fetcher: Fetcher, imaging: ImagePipeline
    ) async throws -> CacheProduction {
        let fetched: FetchedMedia
        do {
            fetched = try await fetcher.fetch(FetchRequest(
                url: source, deadline: deadline, ifNoneMatch: stale?.etag, ifModifiedSince: stale?.lastModified))
        } catch {
            if error.isPermanent { return .failure(code: error.code, message: error.description) }
            throw CacheError.producerFailed(code: error.code, message: error.description)
        }
        let maxAge = fetched.maxAge.map { Duration.seconds($0) }
        if fetched.isNotModified {
            return .notModified(etag: fetched.etag, lastModified: fetched.lastModified, maxAge: maxAge)
        }
        let rendered: RenderedImage
        do {
            rendered = try await imaging.render(fetched.body, as: variant, deadline: deadline)
        } catch {
            switch error {
            case .deadlineExceeded, .cancelled:
                throw CacheError.producerFailed(code: error.code, message: "\(URLRedaction.redact(source)): \(error.description)")
            default: return .failure(code: error.code, message: "\(URLRedaction.redact(source)): \(error.description)")
            }
        }
        return .object(
            bytes: rendered.bytes, format: rendered.format.rawValue, fileExtension: rendered.format.fileExtension,
            width: rendered.width, height: rendered.height, etag: fetched.etag, lastModified: fetched.lastModified,
            maxAge: maxAge)
    }
}
