import Foundation
import RichPush

extension ServeRoutes {
    /// `POST /v1/preview`, what the page at `/` posts: one document in any shape, NDJSON (`application/x-ndjson`,
    /// one job per line) or a URL list (`text/uri-list`, previewed as a story with a page per URL; text with a line that is not an
    /// http(s) URL is previewed as a document, so it shows as not JSON). Answers the
    /// `StoryPreview` document of its `validate` report, with the rendered images inlined. Documents are enriched one
    /// after another. `PreviewLimits` bounds the answer: at most `--preview-max-lines` lines (else 413), and at most
    /// `--preview-inline-images` image bytes inlined, none for a body of more than one line.
    func preview(_ request: HTTPRequest) async -> HTTPResponse {
        // Each document with its line number (NDJSON only), as `validate` reads a file.
        var documents: [(data: Data, line: Int?)]
        switch request.contentType {
        case "text/uri-list":
            // Text that is not a list of http(s) URLs (`hello world`) is previewed as the document it is: not JSON.
            guard let urls = URLListStory.urls(in: request.body) else {
                documents = [(request.body, nil)]
                break
            }
            if let refusal = previewLimits.refusal(lines: urls.count) { return refusal }
            guard let story = URLListStory.document(from: urls) else {
                return .error(400, code: .emptyURLList, message: "the URL list holds no URL")
            }
            documents = [(story, nil)]
        case "application/x-ndjson":
            let lines = LineSplitter.lines(of: request.body, maximumLineBytes: enricher.configuration.maximumDocumentBytes)
            if let refusal = previewLimits.refusal(lines: lines.count) { return refusal }
            documents = lines.enumerated().map { index, line in (line, index + 1) }
        default:
            documents = [(request.body, nil)]
        }
        var results: [JobResult] = []
        let processor = DocumentProcessor(enricher: enricher)
        for document in documents {
            results += await processor.resultLine(for: document.data, line: document.line).results
        }
        let failed = results.contains { ValidationVerdict.fails($0, strict: strict) }
        let report = ValidationVerdict.jsonReport(file: "request", results: results)
        let preview = await StoryPreview.build(
            reports: [report], valid: !failed, store: store,
            maximumImageBytes: previewLimits.imageBytes(forLines: documents.count), options: enricher.configuration.payload)
        return HTTPResponse(status: 200, contentType: "application/json", body: preview.json.serialized())
    }
}
