import Foundation
import RichPushCore
import RichPushPayload
import RichPushCache

/// The data behind the story preview page: `validate`'s JSON reports with the secrets of media URLs removed, each
/// result's payload limit, and each rendered image as a `data:` URL keyed by its `cached_url`.
///
/// The page renders only from this document, so `serve`'s page and `validate --html`'s file show exactly what
/// `validate --format json` reports, and no payload rule is written twice.
///
/// Why `data:` URLs rather than a `GET /objects/…` route on `serve`: `validate --html` must inline its images anyway,
/// so one document serves both; an object-storage cache has no local file to serve; and `serve`, which may listen on
/// a public address, exposes no file-serving route whose paths would need guarding. The price is size: images are
/// base64 (a third larger) inside the JSON, at most about 5 MB for a ten-page story with an attachment, and each
/// preview reads its objects again instead of letting the browser cache them, which suits an author's tool.
package struct StoryPreview: Sendable {
    /// The preview document: `{"valid", "fetched", "summary", "reports": [...], "images": {...},
    /// "images_omitted": N}`, each result carrying `PreviewScreen`'s `story` and `screen`.
    package let json: JSONValue

    /// Builds the document from `reports` (each one file's `validate --format json` report). With a `store`, the
    /// object behind every `cached_url` that `CachedObjectPath` accepts and the store still holds is read and
    /// inlined (one lookup and one read per distinct object); without one (`--no-fetch`), `images` is empty and the
    /// page shows placeholders, never the original URLs, so the page loads nothing from the network and names no
    /// signed URL.
    ///
    /// `maximumImageBytes` bounds the image bytes inlined (before base64, which adds a third): an image that would
    /// pass it is left out, the page shows its placeholder, and `images_omitted` counts it. `serve` passes its
    /// `--preview-inline-images`, so one answer stays bounded whatever the request asks to render. `options` are the
    /// payload options the reports were made with (their story key).
    package static func build(
        reports: [JSONValue], valid: Bool, store: (any MediaStore)?,
        maximumImageBytes: Int = .max, options: PayloadOptions = PayloadOptions()
    ) async -> StoryPreview {
        var redactedReports: [JSONValue] = []
        var images = JSONObject()
        var remainingImageBytes = maximumImageBytes
        var omitted = 0
        for report in reports {
            var redacted = MediaURLRedaction(report: report).redact(report).objectValue ?? JSONObject()
            let results = redacted["results"]?.arrayValue ?? []
            redacted["results"] = .array(results.map { PreviewScreen.annotate($0, options: options) })
            redactedReports.append(.object(redacted))
            guard let store else { continue }
            for result in results {
                for media in result.objectValue?["media"]?.arrayValue ?? [] {
                    guard let cachedURL = media.objectValue?["cached_url"]?.stringValue, images[cachedURL] == nil else { continue }
                    switch await inlinedImage(of: cachedURL, in: store, maximumBytes: remainingImageBytes) {
                    case .inlined(let dataURL, let bytes):
                        images[cachedURL] = .string(dataURL)
                        remainingImageBytes -= bytes
                    case .overBudget: omitted += 1
                    case .unavailable: break
                    }
                }
            }
        }
        var document = JSONObject()
        document["valid"] = .bool(valid)
        document["fetched"] = .bool(store != nil)
        document["summary"] = .string(summary(of: redactedReports, fetched: store != nil))
        document["reports"] = .array(redactedReports)
        document["images"] = .object(images)
        document["images_omitted"] = .number(String(omitted))
        return StoryPreview(json: .object(document))
    }

    /// One sentence on what happened to the whole input: nothing sent (not JSON, or rejected), structure only,
    /// nothing to fetch, or how much media rendered. Only media the cache now holds counts as rendered.
    package static func summary(of reports: [JSONValue], fetched: Bool) -> String {
        let results = reports.flatMap { $0.objectValue?["results"]?.arrayValue ?? [] }.compactMap(\.objectValue)
        let states = results.map { $0["screen"]?.objectValue?["state"]?.stringValue ?? "" }
        let sent = states.filter { $0 != "rejected" && $0 != "not_json" }.count
        if sent == 0 {
            return states.contains("not_json") && states.allSatisfy({ $0 == "not_json" })
                ? "Not JSON: nothing would be sent." : "Rejected: nothing would be sent."
        }
        let unsent = results.count - sent
        let rejectedPart = unsent == 0 ? "" : " \(unsent) of \(results.count) jobs rejected: nothing is sent for them."
        let media = results.flatMap { $0["media"]?.arrayValue ?? [] }.compactMap(\.objectValue)
        guard fetched else { return "Structure only: media not fetched (--no-fetch)." + rejectedPart }
        guard !media.isEmpty else { return "Nothing fetched: the push names no media." + rejectedPart }
        let usable = media.filter { $0["cached_url"] != nil }.count
        let rendered = usable == media.count
            ? "Media fetched and rendered (\(usable) of \(media.count))."
            : "\(usable) of \(media.count) media fetched and rendered; see the findings for the rest."
        return rendered + rejectedPart
    }

    /// The object behind `cachedURL` as `data:image/…;base64,…`, or nil when the URL names no cache object of the
    /// store (another host, a refused path) or the object is gone.
    package static func dataURL(of cachedURL: String, in store: any MediaStore) async -> String? {
        if case .inlined(let dataURL, _) = await inlinedImage(of: cachedURL, in: store, maximumBytes: .max) { return dataURL }
        return nil
    }

    private enum InlinedImage {
        case inlined(dataURL: String, bytes: Int)
        case overBudget
        case unavailable
    }

    /// Reads the object only when it fits in `maximumBytes`: the size is known from its metadata first.
    private static func inlinedImage(of cachedURL: String, in store: any MediaStore, maximumBytes: Int) async -> InlinedImage {
        guard let path = CachedObjectPath(cachedURL: cachedURL),
            let object = try? await store.lookup(path.key), object.fileExtension == path.fileExtension,
            store.publicURL(for: object) == cachedURL
        else { return .unavailable }
        guard object.bytes <= maximumBytes else { return .overBudget }
        guard let data = try? await store.contents(of: object), data.count <= maximumBytes else { return .unavailable }
        return .inlined(dataURL: "data:image/\(object.format);base64," + data.base64EncodedString(), bytes: data.count)
    }
}
