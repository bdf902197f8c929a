import Foundation
import RichPushCore

/// The sender's own document, ready to post to the API it was written for, with only what the device payload changed
/// carried back into it: the media URLs (cached, or removed when they failed), the story as the SDK must read it,
/// `mutable-content`, the story category, fallback text, and links that had to go.
///
/// Every other byte stays as the sender wrote it: keys in their order, numbers as written, credentials (`auth`,
/// `api_private_key`) included, since the request must be postable. Values inside JSON strings (Pushwoosh `data`,
/// a `u` container) are rewritten inside the string. Cost: one compare per synced pointer and job, and one write per
/// change.
public enum SenderRequest {
    /// Device-payload pointers whose changes go back to the sender, besides each job's media and story.
    static let syncedPointers: [[String]] = [
        ["aps", "mutable-content"], ["aps", "category"], ["aps", "alert", "title"], ["aps", "alert", "subtitle"],
        ["aps", "alert", "body"],
    ] + PayloadOptions.rootLinkKeys.map { [$0] }

    /// Values are read and written inside JSON strings, which stay strings, and missing objects are created.
    private static let walk: JSONValue.PointerWalk = [.throughJSONText, .creatingObjects]

    /// `document` with the changes each job's rendered device payload made, at the places `job.requestMap` names.
    /// A job without a payload (rejected) changes nothing.
    public static func rewrite(_ document: JSONValue, rendered: [(job: NotificationJob, payload: JSONValue?)],
                               storyKey: String) -> JSONValue {
        var document = document
        for (job, payload) in rendered {
            guard let payload else { continue }
            let map = job.requestMap
            if let pointer = map.payloadPointer, let tokens = JSONPointer.tokens(pointer) {
                document.setValue(payload, at: tokens[...], walk: walk)
                continue
            }
            var pointers = syncedPointers
            // Story pages go back whole (their images, and what validation fixed); attachments one by one.
            if let story = job.story { pointers.append(story.tokens(storyKey: storyKey)) }
            for reference in job.media where reference.role == .attachment {
                if let tokens = JSONPointer.tokens(reference.pointer) { pointers.append(tokens) }
            }
            for tokens in pointers {
                guard let (source, encoding) = map.source(ofDevice: tokens) else { continue }
                let now = payload.value(at: tokens[...], walk: walk).map { encoded($0, encoding) }
                guard now != document.value(at: source[...], walk: walk) else { continue }
                document.setValue(now, at: source[...], walk: walk)
            }
        }
        return document
    }

    /// `value` as the sender's field holds it.
    private static func encoded(_ value: JSONValue, _ encoding: SenderRequestMap.Encoding) -> JSONValue {
        switch (encoding, value) {
        case (.jsonText, .object), (.jsonText, .array): .string(String(decoding: value.serialized(), as: UTF8.self))
        case (.boolean, .number(let text)): .bool(text != "0")
        default: value
        }
    }
}
