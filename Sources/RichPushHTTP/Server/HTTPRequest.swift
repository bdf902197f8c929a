import Foundation

/// One HTTP request as the server hands it to its handler: the body is complete and within the size limit.
package struct HTTPRequest: Sendable {
    package var method: String
    /// The path without the query string, e.g. `/v1/enrich`.
    package var path: String
    /// The media type of `Content-Type`, lowercased and without parameters (`application/x-ndjson`); nil if absent.
    package var contentType: String?
    /// The `Authorization` header as sent; nil if absent.
    package var authorization: String?
    package var body: Data

    package init(method: String, path: String, contentType: String?, authorization: String? = nil, body: Data) {
        self.method = method
        self.path = path
        self.contentType = contentType
        self.authorization = authorization
        self.body = body
    }

    /// The media type of a `Content-Type` value: what comes before any `;`, trimmed and lowercased
    /// (`Application/JSON; charset=utf-8` gives `application/json`).
    package static func mediaType(ofContentType value: String) -> String {
        let type = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return type.trimmingCharacters(in: .whitespaces).lowercased()
    }
}
