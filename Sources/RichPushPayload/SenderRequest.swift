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

    /// `document` with the changes each job's rendered device payload made, at the places `job.requestMap` names.
    /// A job without a payload (rejected) changes nothing.
    public static func rewrite(_ document: JSONValue, rendered: [(job: NotificationJob, payload: JSONValue?)],
                               storyKey: String) -> JSONValue {
        var document = document
        for (job, payload) in rendered {
            guard let payload else { continue }
            let map = job.requestMap
            if let pointer = map.payloadPointer, let tokens = JSONPointer.tokens(pointer) {
                write(payload, at: tokens[...], into: &document)
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
                let now = value(at: tokens[...], in: payload).map { encoded($0, encoding) }
                guard now != value(at: source[...], in: document) else { continue }
                write(now, at: source[...], into: &document)
            }
        }
        return document
    }

    /// The value at `tokens`, reading through JSON strings that hold an object or array.
    private static func value(at tokens: ArraySlice<String>, in value: JSONValue) -> JSONValue? {
        guard let token = tokens.first else { return value }
        switch value {
        case .object(let object): return object[token].flatMap { self.value(at: tokens.dropFirst(), in: $0) }
        case .array(let elements):
            guard let index = Int(token), elements.indices.contains(index) else { return nil }
            return self.value(at: tokens.dropFirst(), in: elements[index])
        case .string(let text):
            guard let inner = try? JSONParser.parse(Data(text.utf8)) else { return nil }
            return self.value(at: tokens, in: inner)
        default: return nil
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

    /// Sets (or with nil removes) the value at `tokens`, creating missing objects on the way and writing through
    /// JSON strings, which stay strings.
    private static func write(_ newValue: JSONValue?, at tokens: ArraySlice<String>, into target: inout JSONValue) {
        guard let token = tokens.first else {
            if let newValue { target = newValue }
            return
        }
        let rest = tokens.dropFirst()
        switch target {
        case .object(var object):
            // Nothing to remove under a member that is not there.
            if newValue == nil && object[token] == nil { return }
            if rest.isEmpty && newValue == nil {
                object.remove(token)
            } else {
                var child = object[token] ?? .object(JSONObject())
                write(newValue, at: rest, into: &child)
                object[token] = child
            }
            target = .object(object)
        case .array(var elements):
            guard let index = Int(token), elements.indices.contains(index) else { return }
            if rest.isEmpty && newValue == nil {
                elements.remove(at: index)
            } else {
                write(newValue, at: rest, into: &elements[index])
            }
            target = .array(elements)
        case .string(let text):
            guard var inner = try? JSONParser.parse(Data(text.utf8)) else { return }
            write(newValue, at: tokens, into: &inner)
            target = .string(String(decoding: inner.serialized(), as: UTF8.self))
        default:
            return
        }
    }
}
