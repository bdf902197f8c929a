/// How one request ended, as `HTTPServer` reports it to its observer once libmicrohttpd is done with it.
package struct HTTPRequestOutcome: Sendable, Equatable {
    package var method: String
    /// The path as the client sent it (without the query string): untrusted, so map it to a known route before
    /// using it as a metric label.
    package var path: String
    /// The status of the response sent, the server's own refusals (408, 413, 503) included.
    package var status: Int
    /// From the headers' arrival to the last byte of the answer handed to the socket (a streamed answer included).
    package var duration: Duration

    package init(method: String, path: String, status: Int, duration: Duration) {
        self.method = method
        self.path = path
        self.status = status
        self.duration = duration
    }
}
