import Foundation
import RichPushCore

/// Fetches untrusted media URLs under a hard deadline, a byte cap and an SSRF guard.
///
/// Owns one libcurl multi handle on a dedicated thread; hundreds of concurrent `fetch` calls share it and its
/// connection pool (HTTP/1.1 keep-alive and HTTP/2 multiplexing, at most `maximumConnectionsPerHost` per host, and
/// at most `maximumConnectionsPerHostPerOwner` of them for one job's transfers).
/// Each fetch costs one easy handle and the body in memory (≤ the cap of its kind: `maximumBytes` for images,
/// `maximumAudioBytes`, `maximumVideoBytes`, chosen by its first bytes); the thread is idle in
/// `curl_multi_poll` when nothing is in flight.
public final class Fetcher: Sendable {
    public let configuration: FetchConfiguration
    private let loop: CurlMultiLoop
    private let policy: TransferPolicy
    private let handles: EasyHandlePool
    private let buffers = BodyBufferPool()
    /// Bytes and durations of every successful fetch, for metrics.
    package let statistics = FetchStatistics()

    public init(configuration: FetchConfiguration = FetchConfiguration()) throws(FetchError) {
        self.configuration = configuration
        policy = TransferPolicy(
            maximumBytes: configuration.maximumBytes, stallTimeout: configuration.stallTimeout,
            addresses: AddressPolicy(allowNetworks: configuration.allowNetworks),
            allowedHosts: configuration.allowedHosts.map { Set($0.map { $0.lowercased() }) },
            decodesContent: configuration.acceptEncoding)
        let handles = EasyHandlePool(capacity: 256)
        self.handles = handles
        loop = try CurlMultiLoop(
            maximumConnectionsPerHost: configuration.maximumConnectionsPerHost,
            maximumTransfersPerOwnerHost: configuration.maximumConnectionsPerHostPerOwner, handles: handles)
    }

    deinit { loop.shutdown() }

    /// Stops the transfer thread; in-flight fetches fail with `cancelled`, later ones too. Idempotent.
    public func shutdown() { loop.shutdown() }

    /// Downloads `request.url` and returns a 2xx body, or a 304 for a conditional request.
    ///
    /// Fails at the deadline at the latest (within a few milliseconds). URLs under a configured local origin are
    /// read from disk. Connection resets, 429, 502, 503 and 504 are retried once after a jittered backoff (or the
    /// origin's `Retry-After`) when that still fits before the deadline. Cancelling the calling task aborts the
    /// transfer promptly with `cancelled`.
    package func fetch(_ request: FetchRequest) async throws(FetchError) -> FetchedMedia {
        let started = ContinuousClock.now
        let media = try await download(request)
        statistics.record(bytes: media.body.count, duration: ContinuousClock.now - started)
        return media
    }

    private func download(_ request: FetchRequest) async throws(FetchError) -> FetchedMedia {
        if let origin = configuration.localOrigins.first(where: { request.url.hasPrefix($0.prefix) }) {
            return try LocalOriginReader.read(
                url: request.url, origin: origin, byteLimits: configuration.byteLimits(accepting: request.acceptedKinds),
                deadline: request.deadline)
        }
        if let problem = URLValidator.problem(with: request.url, allowedHosts: policy.allowedHosts) { throw problem }

        var attempt = 1
        while true {
            if Task.isCancelled { throw .cancelled(url: request.url) }
            if ContinuousClock.now >= request.deadline { throw .deadlineExceeded(url: request.url) }
            let failure: TransferFailure
            var retryAfter: Duration?
            switch await perform(request) {
            case .success(let response):
                let conditional = request.ifNoneMatch != nil || request.ifModifiedSince != nil
                if (200..<300).contains(response.status) || (response.status == 304 && conditional) {
                    return media(from: response, attempts: attempt)
                }
                let retryable = [429, 502, 503, 504].contains(response.status)
                failure = TransferFailure(error: .httpStatus(url: request.url, code: response.status), isRetryable: retryable)
                retryAfter = response.headers["retry-after"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
                    .map { Duration.seconds(max(0, $0)) }
            case .failure(let transferFailure):
                failure = transferFailure
            }
            guard attempt == 1, configuration.retryEnabled, failure.isRetryable,
                  let resumeAt = retryInstant(retryAfter: retryAfter, deadline: request.deadline)
            else { throw failure.error }
            do {
                try await Task.sleep(until: resumeAt, clock: .continuous)
            } catch {
                throw .cancelled(url: request.url)
            }
            attempt += 1
        }
    }

    /// Sends a request to a configured service (object storage) over the same multi handle and connection pool,
    /// and returns its answer whatever the status. Only transport failures throw. Connection resets, 500 and 503
    /// are retried once when the deadline allows (S3 asks clients to retry those); every request this layer sends
    /// is idempotent. Costs one transfer per attempt, with the request and response bodies in memory.
    package func exchange(_ request: ServiceRequest) async throws(FetchError) -> ServiceResponse {
        var attempt = 1
        while true {
            if Task.isCancelled { throw .cancelled(url: request.url) }
            if ContinuousClock.now >= request.deadline { throw .deadlineExceeded(url: request.url) }
            let outcome: TransferOutcome
            do throws(FetchError) {
                outcome = await run(try CurlTransfer(service: request, configuration: configuration, handles: handles, buffers: buffers))
            } catch {
                outcome = .failure(TransferFailure(error: error))
            }
            let isRetryable: Bool
            switch outcome {
            case .success(let response): isRetryable = [500, 503].contains(response.status)
            case .failure(let failure): isRetryable = failure.isRetryable
            }
            if isRetryable, attempt == 1, configuration.retryEnabled,
                let resumeAt = retryInstant(retryAfter: nil, deadline: request.deadline)
            {
                do {
                    try await Task.sleep(until: resumeAt, clock: .continuous)
                } catch {
                    throw .cancelled(url: request.url)
                }
                attempt += 1
                continue
            }
            switch outcome {
            case .success(let response):
                return ServiceResponse(status: response.status, headers: response.headers, body: response.body)
            case .failure(let failure):
                throw failure.error
            }
        }
    }

    /// When the retry may start, or nil when the wait (Retry-After, else 50–250 ms of jitter) would leave too
    /// little of the budget for a second attempt to be worth it.
    private func retryInstant(retryAfter: Duration?, deadline: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        let jitter = Duration.milliseconds(Int.random(in: 50...250))
        let wait = max(retryAfter ?? .zero, jitter)
        let resumeAt = ContinuousClock.now + wait
        return resumeAt + .milliseconds(100) < deadline ? resumeAt : nil
    }

    private func perform(_ request: FetchRequest) async -> TransferOutcome {
        let transfer: CurlTransfer
        do {
            transfer = try CurlTransfer(request: request, configuration: configuration, policy: policy, handles: handles, buffers: buffers)
        } catch {
            return .failure(TransferFailure(error: error))
        }
        return await run(transfer)
    }

    /// Hands `transfer` to the poll thread and waits for its outcome; cancelling the task aborts it.
    private func run(_ transfer: CurlTransfer) async -> TransferOutcome {
        let loop = self.loop
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<TransferOutcome, Never>) in
                transfer.continuation = continuation
                if !loop.submit(transfer) {
                    transfer.finish(.failure(TransferFailure(error: .cancelled(url: transfer.url))))
                }
            }
        } onCancel: {
            loop.cancel(transfer)
        }
    }

    private func media(from response: TransferResponse, attempts: Int) -> FetchedMedia {
        FetchedMedia(
            status: response.status, finalURL: response.finalURL,
            body: response.status == 304 ? Data() : response.body, format: response.status == 304 ? nil : response.format,
            contentType: response.headers["content-type"], etag: response.headers["etag"],
            lastModified: response.headers["last-modified"],
            maxAge: CacheControl.maxAge(response.headers["cache-control"]),
            isNotModified: response.status == 304, redirectCount: response.redirectCount,
            timings: response.timings, attempts: attempts)
    }
}
