import Foundation
import RichPushCore
import RichPushPayload

/// What the phone shows for one result of a `validate` report, worked out in Swift so that the preview page applies
/// no payload rule of its own: the page only draws these fields.
///
/// It adds two fields to the result's JSON:
/// - `story`: the pages the device reads from `apns.payload`, found by `StoryPlacement` (the root, `u` or
///   `userdata`, a container given as a JSON string), each with `image`, `title`, `subtitle`, `duration` (the SDK's
///   default when the page has none, with `duration_is_default`), `link`, `button_title`, its `pointer`, its media
///   result's size and the findings about it; or null when the device would show no story.
/// - `screen`: `{"state", "alert", "reason"}`, where `state` is `story`, `alert` (no usable story: the plain alert
///   card the SDK falls back to), `silent` (nothing is shown), `rejected` (nothing is sent) or `not_json` (the input
///   did not parse; `reason` is the parse error).
///
/// Costs one walk of the result's payload, media and diagnostics per page.
enum PreviewScreen {
    static func annotate(_ result: JSONValue, options: PayloadOptions) -> JSONValue {
        guard var object = result.objectValue else { return result }
        let diagnostics = object["diagnostics"]?.arrayValue ?? []
        let media = object["media"]?.arrayValue ?? []
        var screen = JSONObject()
        var story = JSONValue.null
        if let payload = object["apns"]?.objectValue?["payload"]?.objectValue {
            let alert = alertTexts(payload)
            if let found = StoryPlacement.story(in: payload, options: options),
               let pages = found.story["pages"]?.arrayValue, !pages.isEmpty {
                let pointer = found.placement.pointer(storyKey: options.storyKey)
                var storyObject = JSONObject()
                storyObject["pointer"] = .string(pointer)
                storyObject["container_is_string"] = .bool(found.placement.containerIsString)
                storyObject["pages"] = .array(pages.enumerated().map { index, page in
                    self.page(page, pointer: pointer + "/pages/\(index)", media: media, diagnostics: diagnostics)
                })
                story = .object(storyObject)
                screen["state"] = .string("story")
            } else {
                screen["state"] = .string(alert == nil ? "silent" : "alert")
            }
            screen["alert"] = alert.map(JSONValue.object) ?? .null
        } else {
            let parseError = diagnostics.first { $0.objectValue?["code"]?.stringValue == DiagnosticCode.invalidJSON.rawValue }
            let firstError = diagnostics.first { $0.objectValue?["severity"]?.stringValue == Diagnostic.Severity.error.rawValue }
            screen["state"] = .string(parseError == nil ? "rejected" : "not_json")
            screen["alert"] = .null
            screen["reason"] = (parseError ?? firstError)?.objectValue?["message"] ?? .null
        }
        object["story"] = story
        object["screen"] = .object(screen)
        return .object(object)
    }

    /// The alert's title, subtitle and body as the lock screen shows them (a string alert is its body); nil when
    /// the payload has no alert text.
    private static func alertTexts(_ payload: JSONObject) -> JSONObject? {
        guard let alert = payload["aps"]?.objectValue?["alert"] else { return nil }
        var texts = JSONObject()
        if let body = alert.stringValue {
            texts["body"] = .string(body)
        } else if let fields = alert.objectValue {
            for key in ["title", "subtitle", "body"] {
                if let text = fields[key]?.stringValue { texts[key] = .string(text) }
            }
        }
        return texts.isEmpty ? nil : texts
    }

    /// One page as the viewer draws it. Its media result is the one whose `cached_url` (or, unfetched, `source`)
    /// is the page's image; that result's pointer carries the sender's page number, which the findings use.
    private static func page(_ value: JSONValue, pointer: String, media: [JSONValue], diagnostics: [JSONValue]) -> JSONValue {
        let page = value.objectValue ?? JSONObject()
        var shown = JSONObject()
        shown["pointer"] = .string(pointer)
        for key in ["image", "title", "subtitle", "link", "button_title"] {
            if let text = page[key]?.stringValue { shown[key] = .string(text) }
        }
        if case .number? = page["duration"] {
            shown["duration"] = page["duration"]
            shown["duration_is_default"] = .bool(false)
        } else {
            shown["duration"] = .number(String(PayloadOptions.deviceDefaultStoryDuration))
            shown["duration_is_default"] = .bool(true)
        }
        let image = page["image"]?.stringValue
        let match = media.first { entry in
            let fields = entry.objectValue
            return image != nil && (fields?["cached_url"]?.stringValue ?? fields?["source"]?.stringValue) == image
        }?.objectValue
        var findings: [JSONValue] = []
        if let match {
            var size = JSONObject()
            for key in ["width", "height", "format", "bytes", "source_width", "source_height", "status"] {
                if let field = match[key] { size[key] = field }
            }
            shown["media"] = .object(size)
            if let mediaPointer = match["pointer"]?.stringValue, mediaPointer.hasSuffix("/image") {
                let senderPage = String(mediaPointer.dropLast("/image".count))
                findings = diagnostics.filter { diagnostic in
                    guard let at = diagnostic.objectValue?["pointer"]?.stringValue else { return false }
                    return at == senderPage || at.hasPrefix(senderPage + "/")
                }
            }
        }
        shown["findings"] = .array(findings)
        return .object(shown)
    }
}
