import Foundation
import RichPushCore
import RichPushPayload
import RichPushImaging
import RichPushHTTP
import RichPushCache

/// Enriches notification jobs: renders their media into the cache and rewrites their APNs requests.
///
/// `enrich` never throws and always returns by the deadline plus the time in-flight work takes to notice
/// cancellation (each layer checks between rows, bands or poll rounds, well under 100 ms).
public struct Enricher: Sendable {
    public let configuration: EnricherConfiguration
    private let parser: PayloadParser
    private let renderer: APNsRenderer
    private let media: any MediaStage
    private let fitWarnings = ImageFitWarnings.Memo()

    /// - Parameters:
    ///   - store: the shared media cache; its single-flight makes every source fetched and rendered once.
    ///   - fetcher: the network client; its SSRF guard and byte cap apply to every source.
    public init(configuration: EnricherConfiguration = EnricherConfiguration(), store: any MediaStore, fetcher: Fetcher) {
        self.configuration = configuration
        self.parser = PayloadParser(options: configuration.payload)
        self.renderer = APNsRenderer(options: configuration.payload)
        let imaging = ImagePipeline(limits: configuration.imageLimits, memoryBudget: configuration.renderMemoryBudget)
        self.media = CachedMediaRenderer(fetcher: fetcher, imaging: imaging, store: store, configuration: configuration)
    }

    /// An enricher that fetches nothing (`validate --no-fetch`): every job is parsed, checked and rendered by the
    /// same rules, with each media reference answered at once as not fetched, so the payload keeps its URLs as
    /// written and the job's status is `passthrough`. Costs microseconds per document; no I/O.
    public init(checkingStructureOnly configuration: EnricherConfiguration = EnricherConfiguration()) {
        self.configuration = configuration
        self.parser = PayloadParser(options: configuration.payload)
        self.renderer = APNsRenderer(options: configuration.payload)
        self.media = UnfetchedMedia()
    }

    /// Parses one input document (any supported shape) and enriches every job in it under one deadline.
    ///
    /// A Pushwoosh `request` body holds many notifications (at most `PayloadOptions.maximumNotificationsPerRequest`)
    /// and gives many results, enriched at most `notificationConcurrency` at a time; every other shape gives one.
    /// A document over `maximumDocumentBytes` gives one `line_too_long` result without being parsed (readers may
    /// hand over only its first `maximumDocumentBytes + 1` bytes).
    public func enrich(document: Data, line: Int? = nil, deadline: ContinuousClock.Instant? = nil) async -> [JobResult] {
        let started = ContinuousClock.now
        let deadline = deadline ?? started.advanced(by: configuration.jobDeadline)
        // Every notification of the document fetches as one owner: one request's stalls cannot take a whole host.
        let owner = FetchOwner()
        guard document.count <= configuration.maximumDocumentBytes else {
            var result = JobResult(rejectedDocument: [.lineTooLong(limit: configuration.maximumDocumentBytes)], line: line)
            result.timings.finish(since: started)
            return [result]
        }
        switch parser.parse(document) {
        case .rejected(let diagnostics):
            var result = JobResult(rejectedDocument: diagnostics, line: line)
            result.timings.finish(since: started)
            return [result]
        case .jobs(let jobs) where jobs.count == 1:
            // The common shape: no child task to wait for.
            var result = await enrich(jobs[0], deadline: deadline, owner: owner)
            result.line = line
            return withSenderRequest(jobs, [result])
        case .jobs(let jobs):
            // A request's notifications share the width a document gets (`notificationConcurrency`, from
            // --concurrency), not one task each: a hundred notifications would otherwise fetch and decode at once.
            var slots = [JobResult?](repeating: nil, count: jobs.count)
            await withBoundedConcurrency(over: Array(jobs.indices), width: configuration.notificationConcurrency) { index in
                await enrich(jobs[index], deadline: deadline, owner: owner)
            } onEach: { index, result in
                slots[index] = result
                return true
            }
            let results = slots.compactMap { result in
                var result = result
                result?.line = line
                return result
            }
            return withSenderRequest(jobs, results)
        }
    }

    /// `results` with the document's request, rewritten from every job's device payload (`SenderRequest`).
    private func withSenderRequest(_ jobs: [NotificationJob], _ results: [JobResult]) -> [JobResult] {
        guard let document = jobs.first?.document else { return results }
        let request = SenderRequest.rewrite(
            document, rendered: zip(jobs, results).map { job, result in
                SenderRequest.RenderedJob(job: job, payload: result.apns?.payload, androidMedia: result.androidOutcomes)
            }, storyKey: configuration.payload.storyKey)
        var results = results
        for index in results.indices { results[index].request = request }
        return results
    }

    /// Renders the job's media concurrently, stops at `deadline`, and rewrites the payload from what finished.
    /// The fetches count as `owner`'s (`FetchOwner`): at most half of a host's connections at once.
    package func enrich(_ job: NotificationJob, deadline: ContinuousClock.Instant, owner: FetchOwner = FetchOwner()) async -> JobResult {
        let started = ContinuousClock.now
        let retainUntil = retention(for: job, now: Date())
        let results = await renderMedia(
            of: job, with: media, retainUntil: retainUntil, started: started, deadline: deadline, owner: owner)
        let mediaFinished = ContinuousClock.now
        for media in results where media.isLocalFault {
            configuration.log.log(.error, "local_fault", [
                ("id", job.id.map(JSONValue.string) ?? .null), ("code", .string(media.errorCode?.rawValue ?? "")),
                ("message", .string(media.errorMessage ?? "")),
            ])
        }
        // One result per reference, in order (`results(of:finished:started:)`). An Android field whose media failed
        // leaves the request (`SenderRequest`), and the job says why; the parser already reported the ones that were
        // never fetchable.
        var outcomes: [ExactString: MediaOutcome] = [:], androidOutcomes: [ExactString: MediaOutcome] = [:]
        var androidFindings: [Diagnostic] = []
        for (reference, result) in zip(job.media, results) {
            guard reference.role == .androidImage else {
                outcomes[reference.pointerKey] = result.outcome
                continue
            }
            androidOutcomes[reference.pointerKey] = result.outcome
            if reference.invalidReason == nil, let missing = Diagnostic.mediaNotShown(result.outcome, at: reference.pointer) {
                androidFindings.append(missing)
            }
        }

        // Media that was not fetched leaves the job as written: nothing was enriched.
        var jobResult = JobResult(
            job: job, media: results, rendering: renderer.render(job, media: outcomes),
            status: media.fetchesMedia ? Self.status(of: results) : .passthrough)
        jobResult.androidOutcomes = androidOutcomes
        jobResult.diagnostics += androidFindings
        // A push that lost anything the author wrote (cut text, a dropped page, a removed link, media that kept its
        // original URL so the payload fits) was not fully enriched, whatever its media did.
        if jobResult.status == .enriched, jobResult.diagnostics.contains(where: {
            DiagnosticCode(rawValue: $0.code).map(DiagnosticCode.changesWhatIsShown.contains) == true
        }) {
            jobResult.status = .partial
        }
        // How each image fits its box (a heavy crop, an upscale): warnings that change nothing that is sent.
        for media in results {
            jobResult.diagnostics += fitWarnings.diagnostics(for: media, variant: configuration.variant(named: media.variant))
        }
        // The renderer's findings join the parser's, which are capped already; cap the whole list once more.
        jobResult.diagnostics = jobResult.diagnostics.cappedPerCode(configuration.payload.maximumDiagnosticsPerCode)
        jobResult.timings.mediaMilliseconds = Int((mediaFinished - started) / .milliseconds(1))
        jobResult.timings.finish(since: started)
        return jobResult
    }

    /// Objects must outlive the push: APNs may hold it until its expiration, 30 days at most, counted from when the
    /// provider sends it (a scheduled push may go out weeks later). A job that APNs will not store (expiration 0 or
    /// past) is delivered as soon as it is sent, so a day of retention past the send is plenty.
    func retention(for job: NotificationJob, now: Date) -> Date {
        let sent = Date(timeIntervalSince1970: TimeInterval(job.sendTime(now: now)))
        guard let expiration = job.apnsExpiration(now: now) else {
            return sent.addingTimeInterval(configuration.defaultRetention.timeInterval)
        }
        return max(Date(timeIntervalSince1970: TimeInterval(expiration)), sent.addingTimeInterval(86_400))
    }

    /// One distinct (source, variant) of a job: references to the same source in the same variant render once.
    /// The source is matched by its bytes: two URLs that differ only in Unicode normalization may name two images.
    private struct Work: Hashable {
        var source: ExactString
        var variant: String
    }

    /// Renders one source into the cache as `variant`, for prewarming; never throws.
    public func prewarm(source: String, variant: String, deadline: ContinuousClock.Instant, retainUntil: Date? = nil) async -> MediaResult {
        let retainUntil = retainUntil ?? Date().addingTimeInterval(configuration.defaultRetention.timeInterval)
        return await prewarm(source: source, variant: variant, with: media, retainUntil: retainUntil, deadline: deadline)
    }

    private func prewarm<Stage: MediaStage>(
        source: String, variant: String, with media: Stage, retainUntil: Date, deadline: ContinuousClock.Instant
    ) async -> MediaResult {
        let item = media.item(source: source, pointer: "", variantName: variant)
        switch await media.look(item, retainUntil: retainUntil) {
        case .answered(let result): return result
        case .pending(let item):
            return await media.render(item, retainUntil: retainUntil, deadline: deadline, owner: FetchOwner(), fetches: nil)
        }
    }

    /// Warm keys are answered inline. The rest get one task per distinct (source, variant), and a timer task cancels
    /// them when the deadline passes; a job whose media are all warm creates no task and no timer.
    /// Each reference's (source, variant) is hashed once: it gets its slot, and its result is read back by position.
    private func renderMedia<Stage: MediaStage>(
        of job: NotificationJob, with media: Stage, retainUntil: Date, started: ContinuousClock.Instant,
        deadline: ContinuousClock.Instant, owner: FetchOwner
    ) async -> [MediaResult] {
        var slots: [Work: Int] = [:]
        var slotOfReference: [Int] = []
        slotOfReference.reserveCapacity(job.media.count)
        var finished: [MediaResult?] = []
        var pending: [(slot: Int, item: Stage.Item)] = []
        for reference in job.media {
            let work = Work(source: ExactString(reference.url), variant: reference.variantName)
            if let slot = slots[work] {
                slotOfReference.append(slot)
                continue
            }
            let slot = finished.count
            slots[work] = slot
            slotOfReference.append(slot)
            finished.append(nil)
            if let reason = reference.invalidReason {
                finished[slot] = MediaResult(invalid: reference, reason: reason)
                continue
            }
            let item = media.item(source: reference.url, pointer: reference.pointer, variantName: work.variant)
            guard ContinuousClock.now < deadline else {
                pending.append((slot, item))
                continue
            }
            switch await media.look(item, retainUntil: retainUntil) {
            case .answered(let result): finished[slot] = result
            case .pending(let item): pending.append((slot, item))
            }
        }
        guard !pending.isEmpty else { return results(of: job, finished: finished, slots: slotOfReference, started: started) }

        // A source several variants render is fetched once for all of them.
        let fetches = media.sharedFetches(for: pending.map(\.item))
        var unfinished = pending.count
        await withTaskGroup(of: (Int, MediaResult)?.self) { group in
            for (slot, item) in pending {
                group.addTask {
                    (slot, await media.render(item, retainUntil: retainUntil, deadline: deadline, owner: owner, fetches: fetches))
                }
            }
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                return nil
            }
            for await item in group {
                guard let (slot, result) = item else {
                    group.cancelAll()
                    break
                }
                finished[slot] = result
                unfinished -= 1
                if unfinished == 0 {
                    group.cancelAll()
                    break
                }
            }
        }
        return results(of: job, finished: finished, slots: slotOfReference, started: started)
    }

    /// One result per reference, in payload order (`slots[i]` is reference `i`'s place in `finished`); a source that
    /// did not finish is skipped for the deadline.
    private func results(
        of job: NotificationJob, finished: [MediaResult?], slots: [Int], started: ContinuousClock.Instant
    ) -> [MediaResult] {
        var results: [MediaResult] = []
        results.reserveCapacity(job.media.count)
        for (reference, slot) in zip(job.media, slots) {
            if let result = finished[slot] {
                results.append(result.at(reference))
            } else {
                results.append(MediaResult(
                    pointer: reference.pointer, source: reference.url, variant: reference.variantName, platform: reference.platform,
                    outcome: .skipped(reason: "\(URLRedaction.redact(reference.url)) did not finish before the job's deadline"),
                    milliseconds: milliseconds(since: started)))
            }
        }
        return results
    }

    static func status(of media: [MediaResult]) -> JobStatus {
        guard !media.isEmpty else { return .passthrough }
        let usable = media.count(where: \.isUsable)
        if usable == media.count { return .enriched }
        return usable == 0 ? .fallback : .partial
    }

    private func milliseconds(since start: ContinuousClock.Instant) -> Int {
        max(0, Int((ContinuousClock.now - start) / .milliseconds(1)))
    }
}
