import Foundation
import RichPushCore

/// Turns a list of image URLs (`text/uri-list`: one per line, `#` lines are comments) into a story push with one
/// page per URL, so an author can preview images before writing the payload. Costs one pass over the text.
package enum URLListStory {
    /// The story document, or nil when the text is not a list of URLs or holds none.
    package static func document(from text: Data) -> Data? {
        urls(in: text).flatMap { document(from: $0) }
    }

    /// The URLs of a list, in order, without blank and comment lines; nil when a line does not start with `http://`
    /// or `https://`, so that prose such as `hello world` is not taken for a one-page story. (A line that starts so
    /// but is no valid URL stays a page, which gets the payload layer's `media_url_invalid` finding.)
    package static func urls(in text: Data) -> [String]? {
        let lines = String(decoding: text, as: UTF8.self)
            .split(whereSeparator: { $0 == "\n" || $0 == "\r" })
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        return lines.allSatisfy({ line in
            let lowered = line.lowercased()
            return lowered.hasPrefix("http://") || lowered.hasPrefix("https://")
        }) ? lines : nil
    }

    /// The story document with a page per URL, or nil when there is none.
    package static func document(from urls: [String]) -> Data? {
        guard !urls.isEmpty else { return nil }
        let pages = urls.enumerated().map { index, url -> JSONValue in
            .object(["image": .string(url), "title": .string("Page \(index + 1)")])
        }
        let alert: JSONValue = .object(["title": .string("Story preview"), "body": .string("\(urls.count) images")])
        let document: JSONValue = .object(["aps": .object(["alert": alert]), "pw_stories": .object(["pages": .array(pages)])])
        return document.serialized()
    }
}
