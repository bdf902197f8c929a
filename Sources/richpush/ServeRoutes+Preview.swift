import Foundation
import RichPush

extension ServeRoutes {
    /// `POST /v1/preview`, what the page at `/` posts: one document in any shape, NDJSON (`application/x-ndjson`,
    /// one job per line) or a URL list (`text/uri-list`, previewed as a story with a page per URL). Answers the
    /// `StoryPreview` document of its `validate` report, with the rendered images inlined. Documents are enriched one
    /// after another; each answer holds every rendered image of its jobs in base64.
    func preview(_ request: HTTPRequest) async -> HTTPResponse {
        var documents: [Data]
        switch request.contentType {
        case "text/uri-list":
            guard let story = URLListStory.document(from: request.body) else {
                return .error(400, code: "empty_url_list", message: "the URL list holds no URL")
            }
            documents = [story]
        case "application/x-ndjson":
            documents = request.body.split(separator: 0x0A).map { Data($0.last == 0x0D ? $0.dropLast() : $0) }
            documents.removeAll { $0.allSatisfy { $0 == 0x20 || $0 == 0x09 } }
        default:
            documents = [request.body]
        }
        var results: [JobResult] = []
        for (index, document) in documents.enumerated() {
            results += await enricher.enrich(document: document, line: documents.count > 1 ? index + 1 : nil)
        }
        let failed = results.contains { ValidateCommand.fails($0, strict: strict) }
        let report = ValidateCommand.jsonReport(file: "request", results: results)
        let preview = await StoryPreview.build(reports: [report], valid: !failed, payloadOptions: payloadOptions, store: store)
        return HTTPResponse(status: 200, contentType: "application/json", body: preview.json.serialized())
    }
}
