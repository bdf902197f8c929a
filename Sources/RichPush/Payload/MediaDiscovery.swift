/// Finds media URLs at the configured key paths of an APNs payload.
///
/// A key path is dotted from the root; a segment ending in `[]` walks every element of that array
/// (`pw_stories.pages[].image`). At the end of the path:
/// - a string is one reference (an http(s) URL; anything else gets a `media_url_invalid` warning),
/// - an object contributes every member whose value is an http(s) URL string (OneSignal `att`: id → URL,
///   or `{"url": ...}`); other members are left alone,
/// - an array contributes every http(s) URL string element.
/// References under the story key's `pages` are story pages (variant "story"); the rest are attachments.
struct MediaDiscovery {
    let options: PayloadOptions

    func references(in payload: JSONObject, attachmentVariant: String,
                    diagnostics: inout DiagnosticCollector) -> [MediaReference] {
        var found: [MediaReference] = []
        var seen = Set<String>()
        func add(_ url: String, tokens: [String]) {
            let pointer = JSONPointer.make(tokens)
            guard seen.insert(pointer).inserted else { return }
            if tokens.count >= 3, tokens[0] == options.storyKey, tokens[1] == "pages", let index = Int(tokens[2]) {
                found.append(MediaReference(pointer: pointer, url: url, role: .storyPage(index: index), variantName: "story"))
            } else {
                found.append(MediaReference(pointer: pointer, url: url, role: .attachment, variantName: attachmentVariant))
            }
        }
        for keyPath in options.mediaKeys {
            // A payload holds one or two of the configured keys; looking for the first segment is far cheaper than
            // splitting every path.
            let root = keyPath.prefix { $0 != "." }
            guard payload[String(root.hasSuffix("[]") ? root.dropLast(2) : root)] != nil else { continue }
            let segments = keyPath.split(separator: ".").map(String.init)
            walk(.object(payload), segments[...], tokens: [], keyPath: keyPath) { tokens, value in
                switch value {
                case .string(let url):
                    if PayloadOptions.isHTTPURL(url) {
                        add(url, tokens: tokens)
                    } else {
                        diagnostics.add(.warning, .mediaURLInvalid, JSONPointer.make(tokens),
                                        "\"\(URLRedaction.redact(url))\" is not an http(s) URL, so it is not fetched; write an absolute https:// URL")
                    }
                case .object(let object):
                    for (key, member) in object {
                        if let url = member.stringValue, PayloadOptions.isHTTPURL(url) { add(url, tokens: tokens + [key]) }
                    }
                case .array(let elements):
                    for (index, element) in elements.enumerated() {
                        if let url = element.stringValue, PayloadOptions.isHTTPURL(url) { add(url, tokens: tokens + [String(index)]) }
                    }
                default:
                    diagnostics.add(.warning, .mediaURLInvalid, JSONPointer.make(tokens),
                                    "media key \"\(keyPath)\" holds \(value.typeDescription); write a URL string")
                }
            }
        }
        return found
    }

    private func walk(_ value: JSONValue, _ segments: ArraySlice<String>, tokens: [String], keyPath: String,
                      visit: (_ tokens: [String], _ value: JSONValue) -> Void) {
        guard let segment = segments.first else {
            visit(tokens, value)
            return
        }
        guard case .object(let object) = value else { return }
        let rest = segments.dropFirst()
        if segment.hasSuffix("[]") {
            let name = String(segment.dropLast(2))
            guard case .array(let elements)? = object[name] else { return }
            for (index, element) in elements.enumerated() {
                walk(element, rest, tokens: tokens + [name, String(index)], keyPath: keyPath, visit: visit)
            }
        } else if let child = object[segment] {
            walk(child, rest, tokens: tokens + [segment], keyPath: keyPath, visit: visit)
        }
    }
}
