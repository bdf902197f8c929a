import Foundation
import RichPushCore

/// Checks `pw_stories` and normalizes it in place, wherever the SDK would read it (`StoryPlacement`: the root,
/// `u` or `userdata`).
///
/// Pages that cannot be shown (not an object, no http(s) `image`) are dropped with an error; fixable problems
/// are fixed (numeric-string durations become numbers, durations ≤ 0 are removed and other out-of-range ones
/// clamped, disallowed links are removed with their `button_title`) and reported. If no page is left, or the story
/// is missing/empty/malformed, `pw_stories` is removed (and a story category with it) so the push renders as a
/// plain alert, as the content extension would. A story given as a JSON string holding an object is sent as that
/// object, since the SDK reads no pages from a string; a `u`/`userdata` container given as a string is written back
/// as a string by the renderer.
/// Diagnostics point at pages as the sender numbered them.
struct StoryValidator {
    static let knownPageKeys: Set<String> = ["image", "title", "subtitle", "duration", "link", "button_title"]

    let options: PayloadOptions

    /// Returns where the story is when one with at least one page remains in `payload`, else nil.
    func validate(_ payload: inout JSONObject, diagnostics: inout DiagnosticCollector) -> StoryPlacement? {
        let key = options.storyKey
        guard var placement = StoryPlacement.locate(in: &payload, options: options) else {
            removeStoryCategory(&payload, diagnostics: &diagnostics, reason: "there is no \(key)")
            return nil
        }
        let base = JSONPointer.make(placement.tokens(storyKey: key))
        var tree = JSONValue.object(payload)
        guard var raw = tree.value(at: base) else { return nil }
        func fallBack(_ pointer: String, _ reason: String) -> StoryPlacement? {
            diagnostics.add(.warning, .storyMalformed, pointer, "\(reason); the push is sent as a plain alert")
            tree.setValue(nil, at: base)
            payload = tree.objectValue ?? payload
            placement.restoreForm(in: &payload)
            removeStoryCategory(&payload, diagnostics: &diagnostics, reason: "the story was removed")
            return nil
        }
        if case .string(let text) = raw,
           case .object(let parsed)? = try? JSONParser.parse(Data(text.utf8), maximumDepth: options.maximumDepth) {
            raw = .object(parsed)
            // Pushwoosh's StoryPayloadParser reads `pw_stories` only as a dictionary (only its `u`/`userdata`
            // container may be a string), so a string story would show 0 pages: it is sent as the object it holds.
            diagnostics.add(.warning, .storyJSONString, base, "\(key) was a JSON string, which the Pushwoosh SDK reads as no pages; it is sent as the object it holds")
        }
        guard case .object(var story) = raw else {
            return fallBack(base, "\(key) is \(raw.typeDescription), not an object with \"pages\"")
        }
        guard case .array(var pages)? = story["pages"] else {
            return fallBack(base + "/pages", "\(key) has no \"pages\" array")
        }
        guard !pages.isEmpty else {
            return fallBack(base + "/pages", "\(key).pages is empty")
        }
        if pages.count > options.maximumStoryPages {
            diagnostics.add(.warning, .storyTooManyPages, base + "/pages/\(options.maximumStoryPages)",
                            "the story has \(pages.count) pages; only the first \(options.maximumStoryPages) are sent")
            pages = Array(pages.prefix(options.maximumStoryPages))
        }
        var kept: [JSONValue] = []
        for (index, page) in pages.enumerated() {
            if let valid = validatePage(page, at: base + "/pages/\(index)", diagnostics: &diagnostics) {
                kept.append(.object(valid))
                placement.senderPageIndices.append(index)
            }
        }
        guard !kept.isEmpty else {
            return fallBack(base + "/pages", "no story page has a usable image")
        }
        story["pages"] = .array(kept)
        tree.setValue(.object(story), at: base)
        payload = tree.objectValue ?? payload
        return placement
    }

    private func removeStoryCategory(_ payload: inout JSONObject, diagnostics: inout DiagnosticCollector, reason: String) {
        guard case .object(var aps)? = payload["aps"], aps["category"]?.stringValue == options.storyCategory else { return }
        aps.remove("category")
        payload["aps"] = .object(aps)
        diagnostics.add(.warning, .storyMalformed, "/aps/category",
                        "category \(options.storyCategory) was removed because \(reason); the stories extension would show nothing")
    }

    private func validatePage(_ value: JSONValue, at base: String, diagnostics: inout DiagnosticCollector) -> JSONObject? {
        guard case .object(var page) = value else {
            diagnostics.add(.error, .storyPageNotObject, base, "a story page must be an object, found \(value.typeDescription); the page was dropped")
            return nil
        }
        guard let image = page["image"]?.stringValue, PayloadOptions.isHTTPURL(image) else {
            diagnostics.add(.error, .storyPageImageInvalid, base + "/image",
                            "every story page needs \"image\": an http(s) URL; the page was dropped")
            return nil
        }
        // Our own original-URL key (`--source-keys`) is known too, so a result fed back in raises no warning.
        for key in page.keys where !StoryValidator.knownPageKeys.contains(key) && key != "image" + options.originalURLKeySuffix {
            diagnostics.add(.warning, .storyPageUnknownKey, base + "/" + JSONPointer.escape(key),
                            "\"\(key)\" is not a story page key the extension reads (image, title, subtitle, duration, link, button_title); it was kept")
        }
        if let duration = page["duration"] {
            page["duration"] = checkDuration(duration, at: base + "/duration", diagnostics: &diagnostics)
        }
        if let link = page["link"] {
            if let text = link.stringValue {
                if let problem = options.linkProblem(text) {
                    diagnostics.add(.error, .storyLinkSchemeNotAllowed, base + "/link", problem + "; the link was removed")
                    page.remove("link")
                }
            } else {
                diagnostics.add(.error, .wrongType, base + "/link", "link must be a URL string; it was removed")
                page.remove("link")
            }
            // A button with nowhere to go would do nothing when tapped.
            if page["link"] == nil, page.remove("button_title") != nil {
                diagnostics.add(.warning, .storyButtonTitleRemoved, base + "/button_title",
                                "the page's link was removed, so its button_title was removed too (the button would do nothing)")
            }
        }
        let limits = [("title", options.maximumStoryTitleLength), ("subtitle", options.maximumStorySubtitleLength),
                      ("button_title", options.maximumButtonTitleLength)]
        for (key, limit) in limits {
            guard let value = page[key] else { continue }
            guard let text = value.stringValue else {
                diagnostics.add(.warning, .wrongType, base + "/" + key, "\(key) must be a string, found \(value.typeDescription); it was removed")
                page.remove(key)
                continue
            }
            if text.count > limit {
                diagnostics.limit(.textTooLong, base + "/" + key,
                                  "\(key) is \(text.count) characters; keep it to \(limit) so it fits the story layout",
                                  strict: options.strict)
            }
        }
        return page
    }

    private func checkDuration(_ value: JSONValue, at pointer: String, diagnostics: inout DiagnosticCollector) -> JSONValue? {
        let range = options.storyDurationRange
        var number: Double
        var result = value
        switch value {
        case .number(let text):
            number = Double(text) ?? .nan
        case .string(let text):
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard let parsed = Double(trimmed), parsed.isFinite, !trimmed.hasPrefix("+"),
                  case .number(let canonical)? = try? JSONParser.parse(Data(trimmed.utf8)) else {
                diagnostics.add(.error, .storyDurationInvalid, pointer,
                                "duration \"\(text)\" is not a number of seconds; write a number such as 5 (it was removed, so the default applies)")
                return nil
            }
            number = parsed
            result = .number(canonical)
            diagnostics.add(.warning, .storyDurationString, pointer,
                            "duration \"\(text)\" is a string; write \(canonical) without quotes (it was converted)")
        default:
            diagnostics.add(.error, .storyDurationInvalid, pointer,
                            "duration is \(value.typeDescription); write a number of seconds such as 5 (it was removed, so the default applies)")
            return nil
        }
        guard number.isFinite else { return nil }
        // A clamp to 1 s would flash the page by; without a duration the SDK shows it for its default.
        if number <= 0 {
            diagnostics.add(.warning, .storyDurationOutOfRange, pointer,
                            "duration \(number.formatted()) is not a positive number of seconds; it was removed, so the SDK's default (\(PayloadOptions.deviceDefaultStoryDuration) s) applies")
            return nil
        }
        if number < Double(range.lowerBound) || number > Double(range.upperBound) {
            let clamped = min(max(number, Double(range.lowerBound)), Double(range.upperBound))
            diagnostics.add(.warning, .storyDurationOutOfRange, pointer,
                            "duration \(number.formatted()) is outside \(range.lowerBound)–\(range.upperBound) seconds; it was set to \(Int(clamped))")
            return .number(String(Int(clamped)))
        }
        return result
    }
}

private extension Double {
    func formatted() -> String {
        rounded() == self && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}
