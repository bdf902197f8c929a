/// Brings a rendered payload under the APNs size limit in a fixed, documented order:
/// 1. drop story page subtitles, last page first;
/// 2. truncate texts at grapheme boundaries with "…": `aps.alert.body`, `aps.alert.subtitle`, `aps.alert.title`,
///    then each story page's `title` and `button_title`, last page first;
/// 3. drop story pages from the end (when none is left, the story and its category go, leaving a plain alert).
/// Custom keys are never touched. The caller rejects the job if the result is still too large.
struct PayloadShortener {
    let options: PayloadOptions
    let limit: Int

    mutating func shorten(_ root: JSONObject, diagnostics: inout DiagnosticCollector) -> JSONValue {
        var tree = JSONValue.object(root)
        guard size(tree) > limit else { return tree }
        let storyBase = "/" + JSONPointer.escape(options.storyKey) + "/pages"
        let before = size(tree)

        var pageCount = tree.value(at: storyBase)?.arrayValue?.count ?? 0
        var droppedSubtitles = 0
        for index in stride(from: pageCount - 1, through: 0, by: -1) where size(tree) > limit {
            if tree.value(at: storyBase + "/\(index)/subtitle") != nil {
                tree.setValue(nil, at: storyBase + "/\(index)/subtitle")
                droppedSubtitles += 1
            }
        }
        if droppedSubtitles > 0 {
            diagnostics.add(.warning, .payloadShortened, storyBase,
                            "the payload was \(before) bytes, over \(limit); \(droppedSubtitles) story page subtitle(s) were dropped")
        }

        var textPointers = ["/aps/alert/body", "/aps/alert/subtitle", "/aps/alert/title"]
        for index in stride(from: pageCount - 1, through: 0, by: -1) {
            textPointers.append(storyBase + "/\(index)/title")
            textPointers.append(storyBase + "/\(index)/button_title")
        }
        // Escaped characters make the JSON size differ from the UTF-8 size, so a second pass finishes the job
        // when the first cut fell a few bytes short.
        var originalLengths: [String: Int] = [:]
        for _ in 0..<2 {
            for pointer in textPointers where size(tree) > limit {
                guard let text = tree.value(at: pointer)?.stringValue else { continue }
                let overflow = size(tree) - limit
                guard let shorter = PayloadShortener.truncate(text, removingAtLeast: overflow), shorter != text else { continue }
                tree.setValue(.string(shorter), at: pointer)
                if originalLengths[pointer] == nil { originalLengths[pointer] = text.count }
            }
        }
        for pointer in textPointers {
            guard let before = originalLengths[pointer], let after = tree.value(at: pointer)?.stringValue?.count else { continue }
            diagnostics.add(.warning, .payloadShortened, pointer,
                            "text was cut from \(before) to \(after) characters to fit the \(limit)-byte limit")
        }

        while size(tree) > limit, pageCount > 0 {
            pageCount -= 1
            tree.setValue(nil, at: storyBase + "/\(pageCount)")
            diagnostics.add(.warning, .payloadShortened, storyBase + "/\(pageCount)",
                            "story page \(pageCount + 1) was dropped to fit the \(limit)-byte limit")
            if pageCount == 0 {
                tree.setValue(nil, at: "/" + JSONPointer.escape(options.storyKey))
                if tree.value(at: "/aps/category")?.stringValue == options.storyCategory {
                    tree.setValue(nil, at: "/aps/category")
                }
                diagnostics.add(.warning, .storyRemoved, "/" + JSONPointer.escape(options.storyKey),
                                "no story page fits, so the story was removed and the push is sent as a plain alert")
            }
        }
        return tree
    }

    private func size(_ tree: JSONValue) -> Int { tree.compactByteCount }

    /// Cuts whole grapheme clusters off the end so the UTF-8 size drops by at least `bytes` (after adding "…"),
    /// keeping at least one character. Returns nil when the text cannot get shorter.
    static func truncate(_ text: String, removingAtLeast bytes: Int) -> String? {
        let ellipsis = "…"
        // The new size is prefix + ellipsis, and must be at most the current size minus `bytes`.
        let target = text.utf8.count - bytes - ellipsis.utf8.count
        // A text cut earlier keeps a single ellipsis when it is cut again.
        let text = text.hasSuffix(ellipsis) ? String(text.dropLast()) : text
        guard text.count > 1 else { return nil }
        var result = ""
        var used = 0
        for character in text {
            let length = character.utf8.count
            if used + length > target && !result.isEmpty { break }
            if used + length > target && result.isEmpty {
                result.append(character)
                break
            }
            result.append(character)
            used += length
        }
        if result.count >= text.count { return nil }
        while let last = result.last, last.isWhitespace { result.removeLast() }
        return result.isEmpty ? nil : result + ellipsis
    }
}
