import Foundation
import RichPush

extension ServeRoutes {
    /// `POST /v1/preview`, what the page at `/` posts: one document in any shape, NDJSON (`application/x-ndjson`,
    /// one job per line) or a URL list (`text/uri-list`, previewed as a story with a page per URL). Answers the
    /// `StoryPreview` document of its `validate` report, with the rendered images inlined. Documents are enriched one
    /// after another; each answer holds every rendered image of its jobs in base64.
    func preview(_ request: HTTPRequest) async -> HTTPResponse {
        // Each document with its line number (NDJSON only), as `validate` reads a file.
        var documents: [(data: Data, line: Int?)]
        switch request.contentType {
        case "text/uri-list":
            guard let story = URLListStory.document(from: request.body) else {
                return .error(400, code: "empty_url_list", message: "the URL list holds no URL")
            }
            documents = [(story, nil)]
        case "application/x-ndjson":
            let lines = LineSplitter.lines(of: request.body, maximumLineBytes: enricher.configuration.maximumDocumentBytes)
            documents = lines.enumerated().map { index, line in (line, index + 1) }
        default:
            documents = [(request.body, nil)]
        }
        var results: [JobResult] = []
        for document in documents {
            results += await enricher.enrich(document: document.data, line: document.line)
        }
        let failed = results.contains { ValidateCommand.fails($0, strict: strict) }
        let report = ValidateCommand.jsonReport(file: "request", results: results)
        let preview = await StoryPreview.build(reports: [report], valid: !failed, payloadOptions: payloadOptions, store: store)
        return HTTPResponse(status: 200, contentType: "application/json", body: preview.json.serialized())
    }
}
