import RichPush

/// The codes only `serve`'s preview route answers with (`HTTPResponse.error`); the server's own are in RichPushHTTP.
extension ErrorCode {
    /// 400: a preview's URL list holds no URL.
    static let emptyURLList: ErrorCode = "empty_url_list"
    /// 413: a preview body with more lines than `--preview-max-lines`.
    static let tooManyLines: ErrorCode = "too_many_lines"
}
