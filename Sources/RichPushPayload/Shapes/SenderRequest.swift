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
package enum SenderRequest {
    /// Device-payload pointers whose changes go back to the sender, besides each job's media and story.
    static let syncedPointers: [[String]] = [
        ["aps", "mutable-content"], ["aps", "category"], ["aps", "alert", "title"], ["aps", "alert", "subtitle"],
        ["aps", "alert", "body"],
    ] + PayloadOptions.rootLinkKeys.map { [$0] }

    /// Values are read and written inside JSON strings, which stay strings, and missing objects are created.
    private static let walk: JSONValue.PointerWalk = [.throughJSONText, .creatingObjects]

    /// One job's part in its document: where its device payload came from, its story and media, its rendered
    /// device payload (nil when the job was rejected) and what became of its Android image fields
    /// (`MediaReference.Role.androidImage`), by pointer. It keeps only the parts of the job the rewrite reads, so a
    /// warm document does not copy the whole job once more.
    package struct RenderedJob: Sendable {
        var requestMap: SenderRequestMap
        var story: StoryPlacement?
        var media: [MediaReference]
        package var payload: JSONValue?
        package var androidMedia: [ExactString: MediaOutcome]

        package init(job: NotificationJob, payload: JSONValue?, androidMedia: [ExactString: MediaOutcome] = [:]) {
            self.requestMap = job.requestMap
            self.story = job.story
            self.media = job.media
            self.payload = payload
            self.androidMedia = androidMedia
        }
    }

    /// `document` with the changes each job's rendered device payload made, at the places `job.requestMap` names,
    /// and each Android image field rendered: its cached URL, or removed when its media failed or was skipped (the
    /// phone could not have shown it either; the job's findings say why, `Diagnostic.mediaNotShown`). A job
    /// without a payload (rejected) changes nothing.
    package static func rewrite(_ document: JSONValue, rendered: [RenderedJob], storyKey: String) -> JSONValue {
        var document = document
        for rendering in rendered {
            guard let payload = rendering.payload else { continue }
            rewriteAndroidImages(of: rendering, in: &document)
            let map = rendering.requestMap
            if let tokens = map.payloadTokens {
                document.setValue(payload, at: tokens[...], walk: walk)
                continue
            }
            var pointers = syncedPointers
            // Story pages go back whole (their images, and what validation fixed); attachments one by one.
            if let story = rendering.story { pointers.append(story.tokens(storyKey: storyKey)) }
            for reference in rendering.media where reference.role == .attachment {
                pointers.append(reference.tokens)
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

    /// Each Android image field that still holds the URL it was found with gets its media's cached URL, or goes.
    private static func rewriteAndroidImages(of rendering: RenderedJob, in document: inout JSONValue) {
        // Removals from the end, so that no removal moves another field (no field of the table is in an array).
        for reference in rendering.media.reversed() where reference.role == .androidImage {
            guard document.value(at: reference.tokens[...])?.stringValue == reference.url else { continue }
            if reference.invalidReason == nil, let outcome = rendering.androidMedia[reference.pointerKey], outcome.keepsField {
                document.setValue(.string(outcome.publicURL(writtenAs: reference.url)), at: reference.tokens[...])
            } else {
                document.setValue(nil, at: reference.tokens[...])
            }
        }
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
