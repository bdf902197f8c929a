import RichPushCore
/// Finds media URLs at the configured key paths (`MediaKeyPath`) of an APNs payload. At the end of a path:
/// - a string is one reference,
/// - an object contributes every member whose value is an http(s) URL string (OneSignal `att`: id → URL,
///   or `{"url": ...}`), or a string with another scheme; other members (`"type": "jpg"`) are left alone,
/// - an array contributes its string elements the same way.
/// A reference that cannot be fetched (`ftp:`, `file:`, `data:`, control characters) gets a `media_url_invalid`
/// warning and an `invalidReason`: it is never fetched and the renderer removes it, so it never reaches a phone. A
/// value without a scheme (an asset name, a relative path) is not a URL at all: it is left as it is, with an info. A URL under `ownMediaBaseURL` is our own cached object and is not a reference at all.
/// References under the story's `pages` (wherever `StoryPlacement` found it: the root, `u` or `userdata`) are story
/// pages (variant "story"), with pointers that use the sender's page numbers; the rest are attachments.
struct MediaDiscovery {
    let options: PayloadOptions

    func references(in payload: JSONObject, story: StoryPlacement?, attachmentVariant: String,
                    diagnostics: inout DiagnosticCollector) -> [MediaReference] {
        var found: [MediaReference] = []
        var seen = Set<ExactString>()
        let storyPages = (story?.tokens(storyKey: options.storyKey) ?? [options.storyKey]) + ["pages"]
        var keyPaths = options.mediaKeyPaths
        // A story inside `u` or `userdata` is read there; its images are media when story images are.
        if let container = story?.container {
            let storyKeyPath = options.storyKey + ".pages[].image"
            if keyPaths.contains(where: { $0.text == storyKeyPath }) {
                keyPaths.removeAll { $0.text == storyKeyPath }
                keyPaths.append(MediaKeyPath(container + "." + storyKeyPath))
            }
        }
        /// `whole` is true when the string is the key's whole value: any string there is meant as a URL.
        func consider(_ url: String, tokens: [String], whole: Bool) {
            if options.isOwnMedia(url) { return }
            if PayloadOptions.isHTTPURL(url) {
                add(url, tokens: tokens, invalidReason: nil)
            } else if whole && PayloadOptions.scheme(of: url) == nil {
                // An asset name or a relative path is the app's own business (it may resolve it from its bundle).
                diagnostics.add(.info, .mediaValueNotURL, JSONPointer.make(tokens),
                                "\"\(URLRedaction.redact(url))\" is not a URL, so nothing was fetched; it was left as it is for the app")
            } else if PayloadOptions.scheme(of: url) != nil {
                let reason = "\"\(URLRedaction.redact(url))\" is not an absolute http(s) URL, so it cannot be fetched; it was removed from the payload (write an absolute https:// URL)"
                diagnostics.add(.warning, .mediaURLInvalid, JSONPointer.make(tokens), reason)
                add(url, tokens: tokens, invalidReason: reason)
            }
        }
        func add(_ url: String, tokens: [String], invalidReason: String?) {
            if tokens.count > storyPages.count, tokens.starts(with: storyPages), let index = Int(tokens[storyPages.count]) {
                // The pointer names the page as the sender numbered it, before invalid pages were dropped.
                var senderTokens = tokens
                let senderIndices = story?.senderPageIndices ?? []
                senderTokens[storyPages.count] = String(senderIndices.indices.contains(index) ? senderIndices[index] : index)
                let page = MediaReference(tokens: senderTokens, url: url, role: .storyPage(index: index), variantName: VariantName.story)
                guard seen.insert(page.pointerKey).inserted else { return }
                found.append(page)
                return
            }
            let attachment = MediaReference(tokens: tokens, url: url, role: .attachment, variantName: attachmentVariant,
                                            invalidReason: invalidReason)
            guard seen.insert(attachment.pointerKey).inserted else { return }
            found.append(attachment)
        }
        // The walk collects what it reaches, and this loop judges it: a closure for the walk to call would capture
        // the discovery and its options, copying them (a retain per field) for every key path of every job.
        var ends: [(tokens: [String], value: JSONValue)] = []
        for keyPath in keyPaths {
            // A payload holds one or two of the configured keys: the others end at their first segment.
            guard let root = keyPath.segments.first, payload[root.name] != nil else { continue }
            var tokens: [String] = []
            ends.removeAll(keepingCapacity: true)
            Self.walk(.object(payload), keyPath.segments[...], tokens: &tokens, ends: &ends)
            for (tokens, value) in ends {
                switch value {
                case .string(let url):
                    consider(url, tokens: tokens, whole: true)
                case .object(let object):
                    for (key, member) in object {
                        if let url = member.stringValue { consider(url, tokens: tokens + [key], whole: false) }
                    }
                case .array(let elements):
                    for (index, element) in elements.enumerated() {
                        if let url = element.stringValue { consider(url, tokens: tokens + [String(index)], whole: false) }
                    }
                default:
                    diagnostics.add(.warning, .mediaURLInvalid, JSONPointer.make(tokens),
                                    "media key \"\(keyPath.text)\" holds \(value.typeDescription); write a URL string")
                }
            }
        }
        return found
    }

    /// The references of the request's Android image fields: an http(s) URL is rendered as the field's variant;
    /// an unfetchable URL (`ftp:`, `data:`) is removed like an iOS one, with `media_url_invalid`; a value without a
    /// scheme (an app resource name, OneSignal's `ic_stat_logo`) and our own cached URL are left as they are, and a
    /// value that is not a string is left with a warning.
    func references(in images: [AndroidImage], diagnostics: inout DiagnosticCollector) -> [MediaReference] {
        var found: [MediaReference] = []
        for image in images where !found.contains(where: { $0.pointer == image.pointer }) {
            guard let url = image.value.stringValue else {
                diagnostics.add(.warning, .mediaURLInvalid, image.pointer,
                                "an Android image field holds \(image.value.typeDescription); write a URL string (it was left as it is)")
                continue
            }
            if options.isOwnMedia(url) { continue }
            var invalidReason: String?
            if !PayloadOptions.isHTTPURL(url) {
                guard PayloadOptions.scheme(of: url) != nil else { continue }
                invalidReason = "\"\(URLRedaction.redact(url))\" is not an absolute http(s) URL, so no phone can fetch it; it was removed from the request (write an absolute https:// URL)"
                diagnostics.add(.warning, .mediaURLInvalid, image.pointer, invalidReason ?? "")
            }
            found.append(MediaReference(pointer: image.pointer, url: url, role: .androidImage, variantName: image.variantName,
                                        platform: image.platform, invalidReason: invalidReason))
        }
        return found
    }

    /// Appends to `ends` every value the key path's `segments` reach, with its pointer's tokens. Static, so that
    /// the recursion does not copy the discovery and its options at every level; `tokens` grows and shrinks in place
    /// as the walk goes down and back up.
    private static func walk(_ value: JSONValue, _ segments: ArraySlice<MediaKeyPath.Segment>, tokens: inout [String],
                             ends: inout [(tokens: [String], value: JSONValue)]) {
        guard let segment = segments.first else {
            ends.append((tokens, value))
            return
        }
        guard case .object(let object) = value else { return }
        let rest = segments.dropFirst()
        switch segment {
        case .everyElement(of: let name):
            guard case .array(let elements)? = object[name] else { return }
            tokens.append(name)
            for (index, element) in elements.enumerated() {
                tokens.append(String(index))
                walk(element, rest, tokens: &tokens, ends: &ends)
                tokens.removeLast()
            }
            tokens.removeLast()
        case .member(let name):
            guard let child = object[name] else { return }
            tokens.append(name)
            walk(child, rest, tokens: &tokens, ends: &ends)
            tokens.removeLast()
        }
    }
}
