import Foundation
import RichPushCore

/// What a handler answers: a status, headers and either a whole body or a stream of chunks.
public struct HTTPResponse: Sendable {
    public enum Body: Sendable {
        /// Sent with a `Content-Length`.
        case complete(Data)
        /// Sent chunked, each element as soon as it is yielded; the response ends when the stream finishes.
        case stream(AsyncStream<Data>)
    }

    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: Body

    public init(status: Int, headers: [(name: String, value: String)] = [], body: Body) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A whole body with its content type.
    public init(status: Int, contentType: String, body: Data, headers: [(name: String, value: String)] = []) {
        self.init(status: status, headers: [("Content-Type", contentType)] + headers, body: .complete(body))
    }

    /// A JSON error body `{"error": {"code", "message"}}`.
    public static func error(_ status: Int, code: String, message: String, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        let body = JSONValue.object(["error": .object(["code": .string(code), "message": .string(message)])])
        return HTTPResponse(status: status, contentType: "application/json", body: body.serialized(), headers: headers)
    }
}
