import Foundation
import RichPushCore

/// What a handler answers: a status, headers and either a whole body or a stream of chunks.
package struct HTTPResponse: Sendable {
    package enum Body: Sendable {
        /// Sent with a `Content-Length`.
        case complete(Data)
        /// Sent chunked: `produce` runs in the request's task once the handler has returned, each chunk it writes
        /// is sent as soon as the client takes it, and the response ends when it returns. It is cancelled when the
        /// client leaves or shutdown's grace period ends, and the request counts against the in-flight limit until
        /// it has returned.
        case stream(@Sendable (HTTPResponseWriter) async -> Void)
    }

    package var status: Int
    package var headers: [(name: String, value: String)]
    package var body: Body

    package init(status: Int, headers: [(name: String, value: String)] = [], body: Body) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A whole body with its content type.
    package init(status: Int, contentType: String, body: Data, headers: [(name: String, value: String)] = []) {
        self.init(status: status, headers: [("Content-Type", contentType)] + headers, body: .complete(body))
    }

    /// A JSON error body `{"error": {"code", "message"}}`; `code` is a declared `ErrorCode`, as in every other output.
    package static func error(_ status: Int, code: ErrorCode, message: String, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        let body = JSONValue.object(["error": .object(["code": .string(code.rawValue), "message": .string(message)])])
        return HTTPResponse(status: status, contentType: "application/json", body: body.serialized(), headers: headers)
    }

    /// The whole response as bytes on the wire, with `Connection: close`, for the one case libmicrohttpd cannot
    /// send a response itself: a refusal in the middle of a body. A streamed body is left out.
    func closingWireBytes(reason: String) -> [UInt8] {
        let body: Data
        if case .complete(let data) = self.body { body = data } else { body = Data() }
        var head = "HTTP/1.1 \(status) \(reason)\r\n"
        for header in headers { head += "\(header.name): \(header.value)\r\n" }
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + body
    }
}
