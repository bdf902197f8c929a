import Foundation
import RichPush
import Synchronization

/// What `serve` answers on each path. Every body is the JSON `process` or `validate --format json` writes, or the
/// story preview page that renders that JSON.
struct ServeRoutes: Sendable {
    let enricher: Enricher
    let store: any MediaStore
    let metrics: JobMetrics
    let logger: Logger
    let concurrency: Int
    let strict: Bool
    let previewLimits: PreviewLimits
    /// Required on `/v1/*` when set (`--auth-token-file`); the page, health and metrics stay open.
    let authToken: BearerToken?
    /// Required on `/metrics` of a `--metrics-listen` listener on a non-loopback address, when set.
    let metricsToken: BearerToken?
    let requestMetrics: HTTPRequestMetrics
    /// False with `--metrics-listen`: `/metrics` is then answered on that listener only.
    let servesMetrics: Bool

    /// The story preview page with its form, built once.
    private static let previewPage = Data(PreviewPage.html().utf8)

    /// The media types `/v1/*` reads. Anything else is refused, so that a page on another site cannot post here
    /// without the browser asking first (a form or `text/plain` post is a CORS "simple request"; these are not).
    static let acceptedMediaTypes: Set<String> = ["application/json", "application/x-ndjson", "text/uri-list"]

    /// The paths served, which are also the `route` label of the request metrics; any other path counts as `other`.
    static let routes: Set<String> = ["/v1/enrich", "/v1/validate", "/v1/preview", "/", "/healthz", "/readyz", "/metrics"]

    /// The answer to a `/v1/*` request without the token.
    static let unauthorized = HTTPResponse.error(
        401, code: .unauthorized, message: "this endpoint needs the header 'Authorization: Bearer <token>' with the token of --auth-token-file",
        headers: [("WWW-Authenticate", #"Bearer realm="richpush""#)])

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        if request.path.hasPrefix("/v1/"), let authToken, !authToken.admits(authorization: request.authorization) {
            return Self.unauthorized
        }
        if request.method == "POST", request.path.hasPrefix("/v1/") {
            guard let type = request.contentType, Self.acceptedMediaTypes.contains(type) else {
                return .error(415, code: .unsupportedMediaType,
                              message: "\(request.path) takes Content-Type \(Self.acceptedMediaTypes.sorted().joined(separator: ", ")), not \(request.contentType ?? "none")")
            }
            guard !request.body.isEmpty else {
                return .error(400, code: .emptyBody, message: "\(request.path) needs a body")
            }
        }
        switch (request.method, request.path) {
        case ("POST", "/v1/enrich"):
            return request.contentType == "application/x-ndjson" ? enrichLines(request.body) : await enrichDocument(request.body)
        case ("POST", "/v1/validate"):
            return await validate(request.body)
        case ("POST", "/v1/preview"):
            return await preview(request)
        case ("GET", "/"), ("HEAD", "/"):
            return HTTPResponse(status: 200, contentType: "text/html; charset=utf-8", body: Self.previewPage, headers: PreviewPage.servedHeaders)
        case ("GET", "/healthz"), ("HEAD", "/healthz"):
            return json(200, ["status": .string("ok")])
        case ("GET", "/readyz"), ("HEAD", "/readyz"):
            do {
                try await store.checkReadiness()
                return json(200, ["status": .string("ready")])
            } catch {
                return .error(503, code: error.code, message: error.description, headers: [("Retry-After", "5")])
            }
        case ("GET", "/metrics") where servesMetrics:
            return await metricsResponse()
        case (_, "/v1/enrich"), (_, "/v1/validate"), (_, "/v1/preview"):
            return .error(405, code: .methodNotAllowed, message: "\(request.path) takes POST", headers: [("Allow", "POST")])
        case (_, "/"), (_, "/healthz"), (_, "/readyz"),
             (_, "/metrics") where servesMetrics:
            return .error(405, code: .methodNotAllowed, message: "\(request.path) takes GET", headers: [("Allow", "GET, HEAD")])
        default:
            return .error(404, code: .notFound, message: "no such path: \(request.path)")
        }
    }

    /// What the `--metrics-listen` listener answers: metrics and health, nothing of the pipeline.
    func respondOnMetricsListener(to request: HTTPRequest) async -> HTTPResponse {
        switch (request.method, request.path) {
        case ("GET", "/metrics"):
            if let metricsToken, !metricsToken.admits(authorization: request.authorization) { Self.unauthorized } else {
                await metricsResponse()
            }
        case (_, "/healthz"), (_, "/readyz"): await respond(to: request)
        case (_, "/metrics"): .error(405, code: .methodNotAllowed, message: "/metrics takes GET", headers: [("Allow", "GET")])
        default: .error(404, code: .notFound, message: "the metrics listener serves /metrics, /healthz and /readyz only")
        }
    }

    /// Refreshes the sources first (the cache gauges scan at most once a minute).
    private func metricsResponse() async -> HTTPResponse {
        await metrics.refreshSources()
        let text = metrics.prometheusText() + requestMetrics.prometheusText()
        return HTTPResponse(status: 200, contentType: "text/plain; version=0.0.4", body: Data(text.utf8))
    }

    /// What `/v1/enrich` runs each document through: counted in the metrics, each job logged.
    private var documents: DocumentProcessor {
        let logger = self.logger
        return DocumentProcessor(enricher: enricher, metrics: metrics, jobFinished: { logger.jobFinished($0) })
    }

    /// One document in any input shape: 200 with the `process` result, or 400 with it when the job is rejected.
    private func enrichDocument(_ body: Data) async -> HTTPResponse {
        let output = await documents.resultLine(for: body)
        return HTTPResponse(status: output.status == .rejected ? 400 : 200, contentType: "application/json", body: output.bytes)
    }

    /// NDJSON: one result line per input line, in order, each written as soon as it and those before it are done.
    /// The work stops when the client leaves. On shutdown no further line is started, and after the lines in flight
    /// the answer ends with `{"error":"shutting_down","unanswered":N}` instead of the N lines never started.
    private func enrichLines(_ body: Data) -> HTTPResponse {
        let lines = LineSplitter.lines(of: body, maximumLineBytes: enricher.configuration.maximumDocumentBytes)
        let processor = LineProcessor(documents: documents, concurrency: concurrency)
        return HTTPResponse(status: 200, headers: [("Content-Type", "application/x-ndjson")], body: .stream { writer in
            let taken = Mutex(0)
            // A line is taken only while the server runs and the client is there.
            // One line a batch: a line counts as taken when the processor asks for it.
            let input = AsyncStream<[Data]> {
                guard !writer.isStopping, !Task.isCancelled else { return nil }
                return taken.withLock { taken -> [Data]? in
                    guard taken < lines.count else { return nil }
                    taken += 1
                    return [lines[taken - 1]]
                }
            }
            _ = await processor.run(input, emit: { line, _ in
                var line = line
                line.append(0x0A)
                writer.write(line)
            })
            let unanswered = lines.count - taken.withLock { $0 }
            if unanswered > 0 {
                let code = writer.isStopping ? ErrorCode.shuttingDown : .cancelled
                var trailer = JSONValue.object(["error": .string(code.rawValue), "unanswered": .number(String(unanswered))]).serialized()
                trailer.append(0x0A)
                writer.write(trailer)
            }
        })
    }

    /// The `validate --format json` report of one document: fetched and rendered, with its findings; like the CLI's
    /// `validate`, neither counted in the job metrics nor logged per job.
    private func validate(_ body: Data) async -> HTTPResponse {
        let results = await DocumentProcessor(enricher: enricher).resultLine(for: body).results
        let failed = results.contains { ValidationVerdict.fails($0, strict: strict) }
        var report = JSONObject()
        report["valid"] = .bool(!failed)
        report["reports"] = .array([ValidationVerdict.jsonReport(file: "request", results: results)])
        return json(200, report)
    }

    private func json(_ status: Int, _ object: JSONObject) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", body: JSONValue.object(object).serialized())
    }
}
