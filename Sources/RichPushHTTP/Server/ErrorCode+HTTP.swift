import RichPushCore

/// The codes of the HTTP server's own error answers (`HTTPResponse.error`), which no error type throws: a request is
/// refused before any layer sees it. `ErrorCodeSpellingTests` fails on any of them spelled elsewhere.
extension ErrorCode {
    /// 401: a `/v1/` request without the bearer token.
    public static let unauthorized: ErrorCode = "unauthorized"
    /// 415: a body whose Content-Type the route does not take.
    public static let unsupportedMediaType: ErrorCode = "unsupported_media_type"
    /// 400: a POST without a body.
    public static let emptyBody: ErrorCode = "empty_body"
    /// 405: a served path asked with a method it does not take.
    public static let methodNotAllowed: ErrorCode = "method_not_allowed"
    /// 404: no such path.
    public static let notFound: ErrorCode = "not_found"
    /// 503: the server is stopping; also the trailer of a streamed answer cut short by shutdown.
    public static let shuttingDown: ErrorCode = "shutting_down"
    /// 408: the request body did not arrive in time.
    public static let bodyTimeout: ErrorCode = "body_timeout"
    /// 413: the request body is over `--max-body`.
    public static let bodyTooLarge: ErrorCode = "body_too_large"
    /// 503: too many requests in flight.
    public static let saturated: ErrorCode = "saturated"
}
