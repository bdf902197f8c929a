import Foundation
import RichPushCore

/// Renders a parsed job into the APNs request once the media results are known. Pure; never throws.
///
/// Order of work: media rewrite (attachments, then story pages), silent-push
/// cleanup, story category, alert text, `mutable-content`, size shortening, headers.
/// Original-URL keys and the shortening order are documented in docs/diagnostic-codes.md.
/// Cost: linear in the payload size per shortening step; at most a few dozen steps.
package struct APNsRenderer: Sendable {
    package let options: PayloadOptions

    package init(options: PayloadOptions = PayloadOptions()) {
        self.options = options
    }

    /// Renders with the current time (only used to turn a time to live into `apns-expiration`).
    /// `media` is keyed by `MediaReference.pointerKey`; a missing key is treated like a skipped item.
    package func render(_ job: NotificationJob, media: [ExactString: MediaOutcome]) -> RenderOutcome {
        render(job, media: media, now: Date())
    }

    /// Renders with an explicit clock, for reproducible output.
    package func render(_ job: NotificationJob, media: [ExactString: MediaOutcome], now: Date) -> RenderOutcome {
        var diagnostics = DiagnosticCollector()
        var root = job.payload
        if root["aps"] == nil {
            var reordered = JSONObject()
            reordered["aps"] = .object(JSONObject())
            for (key, value) in root { reordered[key] = value }
            root = reordered
        }
        var renderedCount = 0
        var isStory = job.isStory
        var rewrites = MediaRewrites()
        if job.pushType == .alert && !job.isSilent {
            renderedCount += rewriteAttachments(job, media: media, root: &root, rewrites: &rewrites,
                                                diagnostics: &diagnostics)
            if isStory {
                let (pages, keptStory) = rewriteStory(job, media: media, root: &root, rewrites: &rewrites,
                                                      diagnostics: &diagnostics)
                renderedCount += pages
                isStory = keptStory
            }
        }
        var aps = root["aps"]?.objectValue ?? JSONObject()
        if job.isSilent {
            let removed = ["alert", "sound", "badge"].filter { aps.remove($0) != nil }
            if !removed.isEmpty {
                diagnostics.add(.info, .silentContentRemoved, "/aps",
                                "a silent push cannot show \(removed.joined(separator: ", ")); removed")
            }
            aps.remove("mutable-content")
            aps["content-available"] = .number("1")
        } else if job.pushType == .alert {
            // The sender's category is the app's own content-extension category (`SHOP_STORIES`, registered as
            // its UNNotificationExtensionCategory); ours is only for a story that came with none.
            if isStory && (aps["category"]?.stringValue ?? "").isEmpty {
                aps["category"] = .string(options.storyCategory)
            }
            // Android's own image fields are shown by Android whatever the APNs payload holds.
            let hadRichContent = job.media.contains { $0.role != .androidImage } || job.isStory
            let visible = settleAlert(&aps, root: root, story: job.story, hadRichContent: hadRichContent,
                                      diagnostics: &diagnostics)
            if hadRichContent && !visible {
                diagnostics.add(.warning, .mediaWithoutAlert, "/aps",
                                "the push shows no alert, so iOS does not run the service extension and no media or story is shown; the media was still cached (the app may read it itself). Add an alert to show it")
            }
            // The service extension runs only for a visible alert, so mutable-content means nothing without one.
            let tracked = options.deliveryTrackingKeys.contains { root[$0] != nil }
            if visible && (renderedCount > 0 || tracked) { aps["mutable-content"] = .number("1") }
        }
        root["aps"] = .object(aps)
        // The story goes back where it was and in the form it came (the SDK reads strings and objects alike).
        job.story?.restoreForm(in: &root)

        let limit = options.maximumPayloadBytes(for: job.pushType)
        let shortener = PayloadShortener(options: options, limit: limit, rewrites: rewrites,
                                         asSent: job.isSilent ? nil : job.payload)
        let (value, byteCount) = shortener.shorten(root, diagnostics: &diagnostics)
        if byteCount > limit {
            return .rejected(diagnostics.items + [Diagnostic.payloadTooLarge(
                bytes: byteCount, limit: limit, largestKeys: PayloadShortener.largestKeys(of: value))])
        }
        let request = APNsRequest(headers: headers(for: job, now: now), payload: value, byteCount: byteCount, byteLimit: limit,
                                  deviceToken: job.deviceToken, target: job.target)
        return .rendered(request, diagnostics: diagnostics.items)
    }

    // MARK: - Media

    private func rewriteAttachments(_ job: NotificationJob, media: [ExactString: MediaOutcome], root: inout JSONObject,
                                    rewrites: inout MediaRewrites, diagnostics: inout DiagnosticCollector) -> Int {
        var tree = JSONValue.object(root)
        var rendered = 0
        var removals: [[String]] = []
        for reference in job.media where reference.role == .attachment {
            let tokens = reference.tokens
            guard !tokens.isEmpty, tree.value(at: tokens[...])?.stringValue == reference.url else { continue }
            // Unfetchable URLs never reach a phone; the parser already reported them.
            if reference.invalidReason != nil {
                removals.append(tokens)
                continue
            }
            let outcome = media[reference.pointerKey]
            if let missing = Diagnostic.mediaNotShown(outcome, at: reference.pointer) {
                removals.append(tokens)
                diagnostics.items.append(missing)
            } else {
                let publicURL = outcome?.publicURL(writtenAs: reference.url) ?? reference.url
                tree.setValue(.string(publicURL), at: tokens[...])
                rewrites.media.append(.init(pointer: reference.pointer, cachedURL: publicURL, originalURL: reference.url))
                rendered += 1
            }
            if options.includesSourceKeys {
                keepOriginal(reference.url, tokens: tokens, tree: &tree, rewrites: &rewrites, diagnostics: &diagnostics)
            }
        }
        // Reverse order keeps earlier array indices valid while later elements are removed.
        for tokens in removals.reversed() {
            tree.setValue(nil, at: tokens[...])
            removeEmptyContainer(parentOf: tokens, tree: &tree)
        }
        root = tree.objectValue ?? root
        return rendered
    }

    /// Whether `tokens` is exactly the end of a configured key path (the value the SDK reads).
    private func isMediaKeyEnd(_ tokens: [String]) -> Bool {
        options.mediaKeyPaths.contains { $0.ends(at: tokens) }
    }

    /// Writes the original URL, redacted, next to the reference, by the rules in docs/diagnostic-codes.md:
    /// a URL that is the key's whole value gets sibling `<key><suffix>` in the same object; a URL inside a
    /// container (OneSignal `att` dictionary, `{"url":…}` object, URL array) gets `<container><suffix>`, an object
    /// beside the container mapping the same member name (or array index) to the original, because the SDKs
    /// treat every member of the container as an attachment.
    private func keepOriginal(_ original: String, tokens: [String], tree: inout JSONValue, rewrites: inout MediaRewrites,
                              diagnostics: inout DiagnosticCollector) {
        // Every phone gets these keys: signed query strings and user-info stay out.
        let url = URLRedaction.redact(original)
        let suffix = options.originalURLKeySuffix
        let last = tokens[tokens.count - 1]
        let parentTokens = Array(tokens.dropLast())
        if !isMediaKeyEnd(tokens), !parentTokens.isEmpty, isMediaKeyEnd(parentTokens) {
            let containerKey = parentTokens[parentTokens.count - 1]
            let holderTokens = Array(parentTokens.dropLast())
            guard case .object(var holder)? = tree.value(at: holderTokens[...]) else { return }
            let siblingKey = containerKey + suffix
            var originals = JSONObject()
            if let existing = holder[siblingKey] {
                if case .object(let object) = existing { originals = object } else {
                    diagnostics.add(.warning, .originalKeyOverwritten, JSONPointer.make(holderTokens + [siblingKey]),
                                    "\(siblingKey) is reserved for original media URLs; the sender's value was replaced")
                }
            }
            originals[last] = .string(url)
            holder.set(.object(originals), for: siblingKey, after: containerKey)
            tree.setValue(.object(holder), at: holderTokens[...])
            rewrites.addSourceKey(JSONPointer.make(holderTokens + [siblingKey]))
        } else {
            guard case .object(var holder)? = tree.value(at: parentTokens[...]) else { return }
            let siblingKey = last + suffix
            if let existing = holder[siblingKey], existing.stringValue != url {
                diagnostics.add(.warning, .originalKeyOverwritten, JSONPointer.make(parentTokens + [siblingKey]),
                                "\(siblingKey) is reserved for the original of \(last); the sender's value was replaced")
            }
            holder.set(.string(url), for: siblingKey, after: last)
            tree.setValue(.object(holder), at: parentTokens[...])
            rewrites.addSourceKey(JSONPointer.make(parentTokens + [siblingKey]))
        }
    }

    private func removeEmptyContainer(parentOf tokens: [String], tree: inout JSONValue) {
        guard tokens.count >= 2 else { return }
        let parent = tokens.dropLast()
        switch tree.value(at: parent) {
        case .object(let object)? where object.isEmpty: tree.setValue(nil, at: parent)
        case .array(let array)? where array.isEmpty: tree.setValue(nil, at: parent)
        default: break
        }
    }

    /// Returns (pages with rendered media, whether the story survived).
    private func rewriteStory(_ job: NotificationJob, media: [ExactString: MediaOutcome], root: inout JSONObject,
                              rewrites: inout MediaRewrites, diagnostics: inout DiagnosticCollector) -> (Int, Bool) {
        let storyTokens = job.story?.tokens(storyKey: options.storyKey) ?? [options.storyKey]
        let storyPointer = JSONPointer.make(storyTokens)
        let base = storyPointer + "/pages/"
        var tree = JSONValue.object(root)
        guard case .object(var story)? = tree.value(at: storyTokens[...]), case .array(let pages)? = story["pages"] else {
            return (0, false)
        }
        // Findings name pages as the sender numbered them.
        let senderIndices = job.story?.senderPageIndices ?? []
        func senderIndex(_ index: Int) -> Int { senderIndices.indices.contains(index) ? senderIndices[index] : index }
        var references: [Int: MediaReference] = [:]
        for reference in job.media {
            if case .storyPage(let index) = reference.role { references[index] = reference }
        }
        // No byte budget over the pages: the Pushwoosh content extension downloads each page's image to disk as it
        // is shown, so the story's total size does not have to fit its memory.
        var kept: [(page: JSONValue, index: Int, rewrite: MediaRewrites.Rewrite?)] = []
        for (index, pageValue) in pages.enumerated() {
            guard case .object(var page) = pageValue, let reference = references[index],
                  let field = reference.tokens.last else {
                kept.append((pageValue, index, nil))
                continue
            }
            let outcome = media[reference.pointerKey]
            switch outcome {
            case .published?, .notFetched?:
                let publicURL = outcome?.publicURL(writtenAs: reference.url) ?? reference.url
                page[field] = .string(publicURL)
                if options.includesSourceKeys {
                    page.set(.string(URLRedaction.redact(reference.url)), for: field + options.originalURLKeySuffix, after: field)
                }
                kept.append((.object(page), index, .init(pointer: field, cachedURL: publicURL, originalURL: reference.url)))
            case .failed(let error)?:
                diagnostics.add(.warning, .storyPageDropped, base + "\(senderIndex(index))",
                                "story page \(senderIndex(index) + 1) was dropped: its image failed (\(error.code.rawValue)): \(error.description)")
            case .skipped(let reason)?:
                diagnostics.add(.warning, .storyPageDropped, base + "\(senderIndex(index))",
                                "story page \(senderIndex(index) + 1) was dropped: its image was skipped (\(reason))")
            case nil:
                diagnostics.add(.warning, .storyPageDropped, base + "\(senderIndex(index))",
                                "story page \(senderIndex(index) + 1) was dropped: no media result was supplied for its image")
            }
        }
        guard !kept.isEmpty else {
            tree.setValue(nil, at: storyTokens[...])
            root = tree.objectValue ?? root
            if case .object(var aps)? = root["aps"], aps["category"]?.stringValue == options.storyCategory {
                aps.remove("category")
                root["aps"] = .object(aps)
            }
            diagnostics.add(.warning, .storyRemoved, storyPointer,
                            "no story page is left, so the story was removed and the push is sent as a plain alert")
            return (0, false)
        }
        story["pages"] = .array(kept.map(\.page))
        tree.setValue(.object(story), at: storyTokens[...])
        root = tree.objectValue ?? root
        for (position, page) in kept.enumerated() {
            guard var rewrite = page.rewrite else { continue }
            let field = rewrite.pointer
            rewrite.pointer = base + "\(position)/" + JSONPointer.escape(field)
            rewrites.media.append(rewrite)
            if options.includesSourceKeys {
                rewrites.addSourceKey(base + "\(position)/" + JSONPointer.escape(field + options.originalURLKeySuffix))
            }
        }
        return (kept.filter { $0.rewrite != nil }.count, true)
    }

    // MARK: - Text

    /// Alert keys iOS shows as text.
    private static let alertTextKeys = ["title", "subtitle", "body", "title-loc-key", "subtitle-loc-key", "loc-key"]

    /// Removes empty alert texts (an empty string counts as absent, and no alert is sent with empty text), then,
    /// for a push that had media or a story and an alert whose text is now empty, adds fallback text: the first
    /// surviving page's `title` / `subtitle`, else `defaultTitle` / `defaultBody`. A push without `alert` gets
    /// none: badge-, sound- and data-only pushes never become alerts. Returns whether the alert shows any text.
    private func settleAlert(_ aps: inout JSONObject, root: JSONObject, story: StoryPlacement?, hadRichContent: Bool,
                             diagnostics: inout DiagnosticCollector) -> Bool {
        var alert: JSONObject
        var isString = false
        let hadAlert = aps["alert"] != nil
        switch aps["alert"] {
        case .string(let body)?:
            alert = body.isEmpty ? JSONObject() : ["body": .string(body)]
            isString = true
        case .object(let object)?: alert = object
        case nil: alert = JSONObject()
        default: return true   // A wrong type is the sender's; it is left as it was.
        }
        let emptied = Self.alertTextKeys.filter { alert[$0]?.stringValue?.isEmpty == true }
        for key in emptied { alert.remove(key) }
        if !emptied.isEmpty || (isString && alert.isEmpty) {
            diagnostics.add(.info, .emptyAlertTextRemoved, "/aps/alert",
                            "empty alert text (\(emptied.isEmpty ? "body" : emptied.joined(separator: ", "))) counts as absent and was removed; iOS would show a blank line")
        }
        var visible = Self.alertTextKeys.contains { alert[$0] != nil }
        var used: [String] = []
        if !visible && hadRichContent && hadAlert {
            let firstPageTokens = (story?.tokens(storyKey: options.storyKey) ?? [options.storyKey]) + ["pages", "0"]
            let firstPage = JSONValue.object(root).value(at: firstPageTokens[...])?.objectValue
            func text(_ value: String?) -> String? { value?.isEmpty == false ? value : nil }
            var updated = JSONObject()
            if let title = text(firstPage?["title"]?.stringValue) ?? text(options.defaultTitle) {
                updated["title"] = .string(title)
                used.append("title")
            }
            if let body = text(firstPage?["subtitle"]?.stringValue) ?? text(options.defaultBody) {
                updated["body"] = .string(body)
                used.append("body")
            }
            for (key, value) in alert { updated[key] = value }
            alert = updated
            visible = !used.isEmpty
            if visible {
                diagnostics.add(.info, .fallbackTextUsed, "/aps/alert",
                                "alert \(used.joined(separator: " and ")) added from \(firstPage != nil ? "the first story page or " : "")the configured defaults, because iOS runs the extension that shows the media only for a visible alert")
            }
        }
        if alert.isEmpty {
            aps.remove("alert")
        } else if isString && used.isEmpty && alert.count == 1, let body = alert["body"] {
            aps["alert"] = body
        } else {
            aps["alert"] = .object(alert)
        }
        return visible
    }

    // MARK: - Headers

    private func headers(for job: NotificationJob, now: Date) -> [APNsHeader] {
        var headers = [APNsHeader(name: "apns-push-type", value: job.pushType.rawValue)]
        let priority = job.pushType == .background ? 5 : (job.headers.priority ?? 10)
        headers.append(APNsHeader(name: "apns-priority", value: String(priority)))
        if var topic = job.headers.topic ?? options.topic {
            if job.pushType == .voip && !topic.hasSuffix(".voip") { topic += ".voip" }
            headers.append(APNsHeader(name: "apns-topic", value: topic))
        }
        if let collapse = job.headers.collapseID { headers.append(APNsHeader(name: "apns-collapse-id", value: collapse)) }
        if let expiration = job.apnsExpiration(now: now) {
            headers.append(APNsHeader(name: "apns-expiration", value: String(expiration)))
        }
        return headers
    }
}
