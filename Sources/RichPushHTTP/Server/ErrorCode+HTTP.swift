import RichPushCore

/// The codes of the HTTP server's own error answers (`HTTPResponse.error`), which no error type throws: a request is
/// refused before any layer sees it. `ErrorCodeSpellingTests` fails on any of them spelled elsewhere.
extension ErrorCode {
    /// 401: a `/v1/` request without the bearer token.
    package static let unauthorized: ErrorCode = "unauthorized"
    /// 415: a body whose Content-Type the route does not take.
    package static let unsupportedMediaType: ErrorCode = "unsupported_media_type"
    /// 400: a POST without a body.
    package static let emptyBody: ErrorCode = "empty_body"
    /// 405: a served path asked with a method it does not take.
    package static let methodNotAllowed: ErrorCode = "method_not_allowed"
    /// 404: no such path.
    package static let notFound: ErrorCode = "not_found"
    /// 503: the server is stopping; also the trailer of a streamed answer cut short by shutdown.
    package static let shuttingDown: ErrorCode = "shutting_down"
    /// 408: the request body did not arrive in time.
    package static let bodyTimeout: ErrorCode = "body_timeout"
    /// 413: the request body is over `--max-body`.
    package static let bodyTooLarge: ErrorCode = "body_too_large"
    /// 503: too many requests in flight.
    package static let saturated: ErrorCode = "saturated"
}
