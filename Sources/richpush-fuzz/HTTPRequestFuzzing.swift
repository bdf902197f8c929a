import Foundation
import Glibc
import RichPush

/// The `http-request` target: the fuzz input is everything a client sends on one connection (request line, headers,
/// body, pipelined requests, garbage), written to an `HTTPServer` in this process over loopback.
///
/// libmicrohttpd parses the HTTP; what is fuzzed is ours around it: the access handler and body collection (the
/// size limit, the mid-body 413), admission, suspend and resume, streamed bodies, completion and the connection
/// registry. The handler answers in the three ways routes do: inline, after waiting (suspended), and streamed. Any
/// answer must be HTTP; a crash, a leaked exchange (LeakSanitizer) or a hang (libFuzzer's -timeout) is a finding.
enum HTTPRequestFuzzing {
    /// Small limits, so that bodies and deadlines reach them.
    private static let server: HTTPServer = {
        let configuration = HTTPServer.Configuration(
            address: "127.0.0.1", port: 0, threads: 2, maximumConnections: 256, maximumConnectionsPerAddress: 256,
            connectionTimeout: .seconds(2), headerTimeout: .seconds(1), bodyTimeout: .seconds(1), maximumBodyBytes: 4096,
            maximumRequestsInFlight: 64)
        do {
            return try HTTPServer(configuration: configuration, handler: respond)
        } catch {
            preconditionFailure("the fuzz server cannot start: \(error)")
        }
    }()

    @Sendable private static func respond(to request: HTTPRequest) async -> HTTPResponse {
        let summary = Data("\(request.method) \(request.path) \(request.contentType ?? "-") \(request.body.count)\n".utf8)
        switch request.path {
        case "/wait":
            try? await Task.sleep(for: .milliseconds(1))
            return HTTPResponse(status: 200, contentType: "text/plain", body: summary)
        case "/stream":
            let body = request.body
            return HTTPResponse(status: 200, headers: [("Content-Type", "text/plain")], body: .stream { writer in
                writer.write(summary)
                for start in stride(from: 0, to: body.count, by: 1024) where !writer.isStopping && !Task.isCancelled {
                    writer.write(body[(body.startIndex + start)..<(body.startIndex + min(body.count, start + 1024))])
                    await Task.yield()
                }
            })
        default:
            return HTTPResponse(status: request.body.isEmpty ? 200 : 201, contentType: "text/plain", body: summary)
        }
    }

    static func run(_ bytes: Data) {
        exchange(bytes)
        waitUntilIdle()
    }

    /// Waits until the server has closed the connection and released what the handler made for it: libFuzzer looks
    /// for leaks right after `run` returns, so an answer still in flight would be reported as one. A server that
    /// stays busy past its own deadlines is a hang, and fails the run.
    private static func waitUntilIdle() {
        let deadline = ContinuousClock.now + .seconds(10)
        while server.requestsInFlight > 0 || server.openConnections > 0 {
            if ContinuousClock.now > deadline {
                preconditionFailure("the fuzz server is still busy 10 s after the client left: "
                    + "\(server.requestsInFlight) requests, \(server.openConnections) connections")
            }
            usleep(200)
        }
    }

    private static func exchange(_ bytes: Data) {
        // The Content-Type parser on its own, with the input as a header value.
        _ = HTTPRequest.mediaType(ofContentType: String(decoding: bytes.prefix(256), as: UTF8.self))

        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return }
        defer {
            // Reset rather than TIME_WAIT: a run makes tens of thousands of connections.
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(socket, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            close(socket)
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(server.port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        // Tens of thousands of short connections leave the server's closed ends in TIME_WAIT, so a loaded machine can
        // run out of loopback ports for a moment (EADDRNOTAVAIL): that is the harness's limit, not a finding, and
        // waits; a server that stops accepting for a whole second still fails the run.
        var connected: Int32 = -1
        for _ in 0..<200 {
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if connected == 0 || ![EADDRNOTAVAIL, EAGAIN, EINTR].contains(errno) { break }
            usleep(5_000)
        }
        guard connected == 0 else {
            preconditionFailure("the fuzz server does not accept connections: \(String(cString: strerror(errno)))")
        }
        _ = bytes.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        // The client's end: libmicrohttpd answers what it has and closes.
        shutdown(socket, 1)   // SHUT_WR

        // Read until the answer pauses, rather than to EOF: libmicrohttpd 0.9.75 does not always notice a FIN
        // that came with the request until the header deadline. Hanging up mid-answer exercises the client-abort path.
        var answer = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        while poll(&descriptor, 1, answer.isEmpty ? 50 : 5) == 1 {
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            if answer.count < 16 { answer += buffer[..<count] }
        }
        if !answer.isEmpty, !answer.starts(with: Array("HTTP/1.".utf8)) {
            preconditionFailure("an answer that is not HTTP: \(String(decoding: answer.prefix(16), as: UTF8.self))")
        }
    }
}
