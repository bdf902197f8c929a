import RichPushCore
/// Brings a rendered payload under the APNs size limit without changing what the push says, in a fixed,
/// documented order, each step only while the payload is still too large:
/// 1. drop the original-URL keys RichPush added (`--source-keys`), last first;
/// 2. give back the original URL of media whose cached URL is longer, last first, so a push that fitted as sent
///    still fits without losing a character of the author's text (`media_restored_to_fit`);
/// 3. if the push as sent fits, send it exactly as sent: our keys (`mutable-content`, a story category, fallback
///    text, cached URLs) are what does not fit, and the author's content is never cut to make room for them
///    (`payload_sent_as_is`);
/// 4. only then cut `aps.alert.body`, then `aps.alert.subtitle`, at grapheme boundaries with "…", never below
///    `minimumShortenedLength` characters (a push that did not fit as sent).
/// Story pages and their texts, titles, links and custom keys are never cut. The caller rejects the job with
/// `payload_too_large` if the result is still too large.
/// Cost: one compact serialization per step, at most a few dozen.
struct PayloadShortener {
    /// Alert texts are never cut below this many characters (the ellipsis included).
    static let minimumShortenedLength = 40

    let options: PayloadOptions
    let limit: Int
    let rewrites: MediaRewrites
    /// The payload as the sender wrote it, before any of our changes; nil where sending it unchanged is not an
    /// option (a silent push, whose alert content must go).
    let asSent: JSONObject?

    /// The payload to send and its compact size (counted once here, so the caller does not count it again).
    func shorten(_ root: JSONObject, diagnostics: inout DiagnosticCollector) -> (payload: JSONValue, byteCount: Int) {
        let tree = JSONValue.object(root)
        let before = size(tree)
        guard before > limit else { return (tree, before) }
        let shortened = shorten(tree, from: before, diagnostics: &diagnostics)
        return (shortened, size(shortened))
    }

    /// The steps above, for a payload of `before` bytes, over the limit.
    private func shorten(_ tree: JSONValue, from before: Int, diagnostics: inout DiagnosticCollector) -> JSONValue {
        var tree = tree

        var droppedSourceKeys = 0
        for pointer in rewrites.sourceKeys.reversed() where size(tree) > limit {
            guard tree.value(at: pointer) != nil else { continue }
            tree.setValue(nil, at: pointer)
            droppedSourceKeys += 1
        }
        if droppedSourceKeys > 0 {
            diagnostics.add(.warning, .payloadShortened, "",
                            "the payload was \(before) bytes, over \(limit); \(droppedSourceKeys) original-URL key(s) added by --source-keys were dropped (the originals stay in the result's media[])")
        }

        for rewrite in rewrites.media.reversed() where size(tree) > limit {
            guard tree.value(at: rewrite.pointer)?.stringValue == rewrite.cachedURL,
                  rewrite.originalURL.utf8.count < rewrite.cachedURL.utf8.count else { continue }
            tree.setValue(.string(rewrite.originalURL), at: rewrite.pointer)
            diagnostics.add(.warning, .mediaRestoredToFit, rewrite.pointer,
                            "the cached URL is longer than the original and the payload was over \(limit) bytes, so the original URL was kept here: the device fetches it as it would have without RichPush")
        }

        if size(tree) > limit, let asSent {
            let original = JSONValue.object(asSent)
            if size(original) <= limit {
                diagnostics.add(.warning, .payloadSentAsIs, "",
                                "the push fits as sent (\(size(original)) bytes) but not with RichPush's changes (\(size(tree)) bytes, over \(limit)), so it goes out exactly as sent: its media is not rewritten and no key is added")
                return original
            }
        }

        // A string alert is the body.
        let textPointers = tree.value(at: "/aps/alert")?.stringValue != nil
            ? ["/aps/alert"] : ["/aps/alert/body", "/aps/alert/subtitle"]
        for pointer in textPointers where size(tree) > limit {
            guard let text = tree.value(at: pointer)?.stringValue else { continue }
            // Escaped characters make the JSON size differ from the UTF-8 size, so a second cut finishes the job
            // when the first fell a few bytes short.
            var current = text
            for _ in 0..<2 where size(tree) > limit {
                guard let shorter = PayloadShortener.truncate(
                    current, removingAtLeast: size(tree) - limit, keeping: Self.minimumShortenedLength) else { break }
                current = shorter
                tree.setValue(.string(current), at: pointer)
            }
            if current != text {
                diagnostics.add(.warning, .payloadShortened, pointer,
                                "text was cut from \(text.count) to \(current.count) characters to fit the \(limit)-byte limit")
            }
        }

        return tree
    }

    private func size(_ tree: JSONValue) -> Int { tree.compactByteCount }

    /// The largest members of the payload, by compact size, for the `payload_too_large` message: the root keys
    /// and the members of `aps`, largest first.
    static func largestKeys(of payload: JSONValue, count: Int = 3) -> [(pointer: String, bytes: Int)] {
        guard case .object(let root) = payload else { return [] }
        var sizes: [(pointer: String, bytes: Int)] = []
        for (key, value) in root {
            if key == "aps", case .object(let aps) = value {
                for (member, inner) in aps {
                    sizes.append(("/aps/" + JSONPointer.escape(member), JSONValue.object([member: inner]).compactByteCount - 2))
                }
            } else {
                sizes.append(("/" + JSONPointer.escape(key), JSONValue.object([key: value]).compactByteCount - 2))
            }
        }
        return Array(sizes.sorted { $0.bytes > $1.bytes }.prefix(count))
    }

    /// Cuts whole grapheme clusters off the end so the UTF-8 size drops by at least `bytes` (after adding "…"),
    /// keeping at least `minimum` characters, the ellipsis included. Returns nil when the text cannot get shorter.
    static func truncate(_ text: String, removingAtLeast bytes: Int, keeping minimum: Int = 1) -> String? {
        let ellipsis = "…"
        // The new size is prefix + ellipsis, and must be at most the current size minus `bytes`.
        let target = text.utf8.count - bytes - ellipsis.utf8.count
        // A text cut earlier keeps a single ellipsis when it is cut again.
        let text = text.hasSuffix(ellipsis) ? String(text.dropLast()) : text
        let keep = max(1, minimum - 1)
        guard text.count > keep else { return nil }
        var result = ""
        var used = 0
        for character in text {
            let length = character.utf8.count
            if used + length > target && result.count >= keep { break }
            result.append(character)
            used += length
        }
        if result.count >= text.count { return nil }
        while result.count > keep, let last = result.last, last.isWhitespace { result.removeLast() }
        return result.isEmpty ? nil : result + ellipsis
    }
}
