import Foundation
import RichPushCore

/// Where a push's story sits and in which form, so it is rewritten in place and written back as it came, and which
/// of the sender's pages survived validation, so findings use the sender's page numbers.
///
/// The Pushwoosh SDK (`StoryPayloadParser.storiesBlock`) reads `pw_stories` as an object, from the payload root or
/// from `u` or `userdata`, which may be an object or a JSON string. While a job is processed the container is an
/// object; the renderer turns it back into a string where it was one.
package struct StoryPlacement: Sendable, Hashable {
    /// The keys the SDK looks in, after the root, in its order.
    static let containers = ["u", "userdata"]

    /// "u" or "userdata", or nil for the payload root.
    package var container: String?
    /// The container was a JSON string holding an object.
    package var containerIsString = false
    /// For each page of the validated story, its index in the story as sent.
    package var senderPageIndices: [Int] = []

    package init(container: String? = nil) {
        self.container = container
    }

    /// The story a device reads from a rendered payload, and where it sits: `locate`'s search, on a copy, so the
    /// preview finds pages exactly where the SDK would. Nil when there is none or it is not an object (the SDK reads
    /// no pages from it). Costs one parse of a container given as a JSON string.
    package static func story(in payload: JSONObject, options: PayloadOptions) -> (placement: StoryPlacement, story: JSONObject)? {
        var payload = payload
        guard let placement = locate(in: &payload, options: options),
              case .object(let story)? = JSONValue.object(payload).value(at: placement.pointer(storyKey: options.storyKey))
        else { return nil }
        return (placement, story)
    }

    /// RFC 6901 pointer of the story object in the payload, e.g. `/u/pw_stories`.
    package func pointer(storyKey: String) -> String {
        JSONPointer.make(tokens(storyKey: storyKey))
    }

    /// Pointer tokens of the story object in the payload.
    func tokens(storyKey: String) -> [String] {
        (container.map { [$0] } ?? []) + [storyKey]
    }

    /// Finds the story: the root first, then `u`, then `userdata`. A container given as a JSON string that holds the
    /// story is replaced by the parsed object. Costs one parse of such a string; nil when there is no story.
    static func locate(in payload: inout JSONObject, options: PayloadOptions) -> StoryPlacement? {
        if payload[options.storyKey] != nil { return StoryPlacement() }
        for container in containers {
            switch payload[container] {
            case .object(let object)? where object[options.storyKey] != nil:
                return StoryPlacement(container: container)
            case .string(let text)?:
                guard case .object(let object)? = try? JSONParser.parse(Data(text.utf8), maximumDepth: options.maximumDepth),
                      object[options.storyKey] != nil else { continue }
                payload[container] = .object(object)
                var placement = StoryPlacement(container: container)
                placement.containerIsString = true
                return placement
            default:
                continue
            }
        }
        return nil
    }

    /// Writes the story's container back as a JSON string where it came as one. The story itself stays an object:
    /// the SDK reads no pages from a string story.
    func restoreForm(in payload: inout JSONObject) {
        var tree = JSONValue.object(payload)
        if containerIsString, let container, let value = tree.value(at: "/" + JSONPointer.escape(container)),
           value.objectValue != nil {
            tree.setValue(.string(String(decoding: value.serialized(), as: UTF8.self)), at: "/" + JSONPointer.escape(container))
        }
        payload = tree.objectValue ?? payload
    }
}
