import Foundation
import RichPushCore
import RichPushPayload
import RichPushImaging
import RichPushHTTP
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
public struct StoryPreview: Sendable {
    /// The preview document: `{"valid", "fetched", "reports": [...], "images": {...},
    /// "images_omitted": N}`.
    public let json: JSONValue

    /// Builds the document from `reports` (each one file's `validate --format json` report). With a `store`, the
    /// object behind every `cached_url` that `CachedObjectPath` accepts and the store still holds is read and
    /// inlined (one lookup and one read per distinct object); without one (`--no-fetch`), `images` is empty and the
    /// page shows placeholders, never the original URLs, so the page loads nothing from the network and names no
    /// signed URL.
    ///
    /// `maximumImageBytes` bounds the image bytes inlined (before base64, which adds a third): an image that would
    /// pass it is left out, the page shows its placeholder, and `images_omitted` counts it. `serve` passes its
    /// `--preview-inline-images`, so one answer stays bounded whatever the request asks to render.
    public static func build(
        reports: [JSONValue], valid: Bool, store: (any MediaStore)?,
        maximumImageBytes: Int = .max
    ) async -> StoryPreview {
        var redactedReports: [JSONValue] = []
        var images = JSONObject()
        var remainingImageBytes = maximumImageBytes
        var omitted = 0
        for report in reports {
            redactedReports.append(MediaURLRedaction(report: report).redact(report))
            let results = report.objectValue?["results"]?.arrayValue ?? []
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
        document["reports"] = .array(redactedReports)
        document["images"] = .object(images)
        document["images_omitted"] = .number(String(omitted))
        return StoryPreview(json: .object(document))
    }

    /// The object behind `cachedURL` as `data:image/…;base64,…`, or nil when the URL names no cache object of the
    /// store (another host, a refused path) or the object is gone.
    public static func dataURL(of cachedURL: String, in store: any MediaStore) async -> String? {
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
