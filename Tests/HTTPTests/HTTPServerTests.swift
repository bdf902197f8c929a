import Foundation
import Glibc
import Synchronization
import TestSupport
import XCTest
@testable import RichPushHTTP

/// `HTTPServer` on loopback, with a keep-alive client of its own: where handlers run, and shutdown under load.
final class HTTPServerTests: XCTestCase {
    private func start(threads: Int = 2, _ handler: @escaping HTTPServer.Handler) throws -> HTTPServer {
        try HTTPServer(configuration: .init(address: "127.0.0.1", port: 0, threads: threads), handler: handler)
    }

    func testAHandlerThatDoesNotWaitIsAnsweredOnThePollingThreadAndOneThatWaitsIsNot() throws {
        let server = try start { request in
            if request.path == "/stream" {
                return HTTPResponse(status: 200, headers: [("Content-Type", "text/plain")], body: .stream { writer in
                    writer.write(Data(currentThreadName().utf8))
                })
            }
            if request.path == "/wait" { try? await Task.sleep(for: .milliseconds(1)) }   // any real suspension
            return HTTPResponse(status: 200, contentType: "text/plain", body: Data(currentThreadName().utf8))
        }
        let client = try KeepAliveClient(port: server.port)
        for _ in 0..<3 {
            let inline = try client.send("GET", "/now")
            XCTAssertEqual(inline.status, 200)
            XCTAssertTrue(inline.body.hasPrefix("MHD"), "answered on libmicrohttpd's thread, not \(inline.body)")
            let waited = try client.send("GET", "/wait")
            XCTAssertEqual(waited.status, 200)
            XCTAssertFalse(waited.body.hasPrefix("MHD"), "a handler that waits continues on the pool")
        }
        // A streamed body is produced on the pool even when nothing in it waits.
        let streamed = try client.send("GET", "/stream")
        XCTAssertEqual(streamed.status, 200)
        XCTAssertFalse(streamed.body.contains("MHD"), streamed.body)
        XCTAssertFalse(streamed.body.isEmpty)
    }

    /// While shutdown waits for a request in flight, a new connection is still accepted and its request answered 503
    /// `shutting_down`, `Connection: close`: the listening socket stays open until the daemon stops, because
    /// libmicrohttpd's `MHD_quiesce_daemon` could abort the process (`HTTPServer.shutdown`).
    func testANewConnectionDuringShutdownIsAnsweredRetryElsewhere() async throws {
        let released = Atomic<Bool>(false)
        let server = try start { _ in
            while !released.load(ordering: .relaxed) { try? await Task.sleep(for: .milliseconds(5)) }
            return HTTPResponse(status: 200, contentType: "text/plain", body: Data("ok".utf8))
        }
        let port = server.port
        let slow = Thread { _ = try? KeepAliveClient(port: port).send("POST", "/enrich", body: "{}") }
        slow.start()
        try await waitUntil(timeout: .seconds(10), "a request in flight") { server.requestsInFlight == 1 }
        let stopping = Task { await server.shutdown(gracePeriod: .seconds(10)) }
        try await waitUntil(timeout: .seconds(10), "shutdown to begin") { server.isStopping }
        let reply = try KeepAliveClient(port: port).send("GET", "/")
        XCTAssertEqual(reply.status, 503)
        XCTAssertTrue(reply.body.contains("shutting_down"), reply.body)
        XCTAssertTrue(reply.closes)
        released.store(true, ordering: .relaxed)
        await stopping.value
        XCTAssertNil(try? KeepAliveClient(port: port).send("GET", "/"), "no longer listening")
    }

    func testShutdownUnderKeepAliveLoadAnswersEveryRequestAndStops() async throws {
        let served = Atomic<Int>(0)
        let server = try start { request in
            // Half the requests wait, so some connections are suspended when shutdown begins.
            if served.add(1, ordering: .relaxed).newValue.isMultiple(of: 2) { try? await Task.sleep(for: .milliseconds(3)) }
            return HTTPResponse(status: 200, contentType: "text/plain", body: Data("ok".utf8))
        }
        let port = server.port
        let statuses = Mutex<[Int: Int]>([:])
        let broken = Atomic<Int>(0)
        let clients = (0..<8).map { _ in
            Thread {
                guard let client = try? KeepAliveClient(port: port) else {
                    broken.add(1, ordering: .relaxed)
                    return
                }
                // Until the server closes the connection: every answer is whole, and either served or refused.
                while let reply = try? client.send("POST", "/enrich", body: "{}") {
                    statuses.withLock { $0[reply.status, default: 0] += 1 }
                    if reply.status == 503 {
                        XCTAssertTrue(reply.body.contains("shutting_down"), reply.body)
                        break
                    }
                }
            }
        }
        clients.forEach { $0.start() }
        try await waitUntil(timeout: .seconds(10), "the load to run", interval: .milliseconds(1)) {
            statuses.withLock { $0[200] ?? 0 } > 100
        }
        await server.shutdown(gracePeriod: .seconds(5))
        try await waitUntil(timeout: .seconds(10), "every client to stop", interval: .milliseconds(5)) {
            !clients.contains(where: { $0.isExecuting })
        }
        XCTAssertEqual(broken.load(ordering: .relaxed), 0)
        XCTAssertGreaterThan(statuses.withLock { $0[200] ?? 0 }, 100, "the load ran: \(statuses.withLock { $0 })")
        XCTAssertEqual(Set(statuses.withLock { $0.keys }).subtracting([200, 503]), [], "only 200 and 503")
        XCTAssertEqual(server.requestsInFlight, 0)
        XCTAssertNil(try? KeepAliveClient(port: port).send("GET", "/"), "no longer listening")
    }

    func testARequestThatOverrunsTheGracePeriodIsAnswered503AndShutdownReturns() async throws {
        // The handler's work ends only when it is cancelled or the test ends it, long after the grace period.
        let workEnds = Gate()
        defer { workEnds.open() }
        let server = try start { _ in
            await withTaskCancellationHandler { await workEnds.wait() } onCancel: { workEnds.open() }
            return HTTPResponse(status: 200, contentType: "text/plain", body: Data("late".utf8))
        }
        let port = server.port
        let reply = Mutex<KeepAliveClient.Reply?>(nil)
        let client = Thread { reply.withLock { $0 = try? KeepAliveClient(port: port).send("GET", "/slow") } }
        client.start()
        try await waitUntil(timeout: .seconds(10), "the request to arrive", interval: .milliseconds(5)) { server.requestsInFlight > 0 }
        let started = ContinuousClock.now
        await server.shutdown(gracePeriod: .milliseconds(200))
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5), "shutdown does not wait for the handler")
        try await waitUntil(timeout: .seconds(15), "the client's answer", interval: .milliseconds(5)) { !client.isExecuting }
        XCTAssertEqual(reply.withLock { $0?.status }, 503)
    }
}

extension HTTPServerTests {
    /// A keep-alive connection counts as open after its answer, and stops counting once the client has closed it.
    func testAConnectionCountsAsOpenUntilTheClientCloses() async throws {
        let server = try start { _ in HTTPResponse(status: 200, contentType: "text/plain", body: Data("ok".utf8)) }
        XCTAssertEqual(server.openConnections, 0)
        var client: KeepAliveClient? = try KeepAliveClient(port: server.port)
        XCTAssertEqual(try client?.send("GET", "/").status, 200)
        XCTAssertEqual(server.openConnections, 1, "answered, and kept alive")
        // libmicrohttpd ends the request (its completion callback) a moment after the client has the answer.
        let answered = ContinuousClock.now
        while server.requestsInFlight > 0, ContinuousClock.now - answered < .seconds(5) { try await Task.sleep(for: .milliseconds(5)) }
        XCTAssertEqual(server.requestsInFlight, 0, "the request has ended")
        XCTAssertEqual(server.openConnections, 1, "and the connection is still open")
        client = nil
        let left = ContinuousClock.now
        while server.openConnections > 0, ContinuousClock.now - left < .seconds(5) { try await Task.sleep(for: .milliseconds(5)) }
        XCTAssertEqual(server.openConnections, 0, "closed once the client left")
    }

    /// A client that leaves mid-answer (a stream it stopped reading, or a handler still waiting) has its work
    /// cancelled, and the request counts as in flight until that work has returned, not only until the client left.
    func testAClientThatLeavesCancelsItsWorkWhichCountsUntilItHasStopped() async throws {
        let ended = Mutex<Set<String>>([])
        let windingDown = Mutex<Set<String>>([])
        let windDownEnds = ["/stream": Gate(), "/wait": Gate()]
        defer { windDownEnds.values.forEach { $0.open() } }
        let server = try start { request in
            /// Runs until cancelled, then winds down until the test lets it end (as a job stopping its fetches would).
            @Sendable func workUntilCancelled() async {
                let cancelled = Gate()
                await withTaskCancellationHandler { await cancelled.wait() } onCancel: { cancelled.open() }
                windingDown.withLock { _ = $0.insert(request.path) }
                await windDownEnds[request.path]?.wait()   // a gate ignores cancellation, as winding down does
                ended.withLock { _ = $0.insert(request.path) }
            }
            guard request.path == "/stream" else {
                await workUntilCancelled()
                return HTTPResponse(status: 200, contentType: "text/plain", body: Data("late".utf8))
            }
            return HTTPResponse(status: 200, headers: [("Content-Type", "text/plain")], body: .stream { writer in
                writer.write(Data("started\n".utf8))
                await workUntilCancelled()
            })
        }
        for path in ["/stream", "/wait"] {
            let socket = try XCTUnwrap(KeepAliveClient.connectedSocket(port: server.port))
            let request = "GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n"
            _ = request.withCString { send(socket, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            if path == "/stream" {
                var buffer = [UInt8](repeating: 0, count: 256)
                XCTAssertGreaterThan(recv(socket, &buffer, buffer.count, 0), 0, "the stream began")
            } else {
                try await waitUntil(timeout: .seconds(10), "the request to arrive", interval: .milliseconds(5)) {
                    server.requestsInFlight > 0
                }
            }
            close(socket)
            try await waitUntil(timeout: .seconds(5), "\(path): the work to be cancelled", interval: .milliseconds(5)) {
                windingDown.withLock { $0.contains(path) }
            }
            XCTAssertGreaterThan(server.requestsInFlight, 0, "\(path): counted while its work winds down")
            windDownEnds[path]?.open()
            let left = ContinuousClock.now
            while server.requestsInFlight > 0 {
                XCTAssertLessThan(ContinuousClock.now - left, .seconds(5), "\(path): the work was cancelled")
                if ContinuousClock.now - left > .seconds(5) { break }
                try await Task.sleep(for: .milliseconds(5))
            }
            XCTAssertTrue(ended.withLock { $0.contains(path) }, "\(path): counted until its work returned")
        }
    }
}

private func currentThreadName() -> String {
    ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
}

/// A blocking HTTP/1.1 client on one keep-alive connection: enough to read `Content-Length` answers.
final class KeepAliveClient {
    struct Reply {
        var status: Int
        var body: String
        /// The answer said `Connection: close`: a client sends nothing more on this connection.
        var closes: Bool
    }

    struct Closed: Error {}

    private let socket: Int32
    private var buffered: [UInt8] = []

    /// Connects to 127.0.0.1:`port`, from `source` if given (any 127/8 address is loopback, and to the server
    /// another client address).
    init(port: Int, source: String? = nil) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if let source {
            var local = loopback(port: 0, host: source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                close(socket)
                throw Closed()
            }
        }
        var address = loopback(port: port, host: "127.0.0.1")
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            throw Closed()
        }
    }

    deinit { close(socket) }

    /// A bare socket connected to 127.0.0.1:`port`, for tests that write and close it themselves.
    static func connectedSocket(port: Int) -> Int32? {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = loopback(port: port, host: "127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            return nil
        }
        return socket
    }

    func send(_ method: String, _ path: String, body: String = "") throws -> Reply {
        let request = "\(method) \(path) HTTP/1.1\r\nHost: test\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        let bytes = Array(request.utf8)
        guard bytes.withUnsafeBytes({ Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else {
            throw Closed()
        }
        var headerEnd: Int?
        while true {
            if headerEnd == nil, let end = find([13, 10, 13, 10]) { headerEnd = end + 4 }
            if let headerEnd {
                let head = String(decoding: buffered[..<headerEnd], as: UTF8.self)
                let lines = head.components(separatedBy: "\r\n")
                let status = Int(lines[0].split(separator: " ").dropFirst().first ?? "") ?? 0
                let length = lines.lazy.compactMap { line -> Int? in
                    let parts = line.split(separator: ":", maxSplits: 1)
                    guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                    return Int(parts[1].trimmingCharacters(in: .whitespaces))
                }.first ?? 0
                let closes = lines.contains { $0.lowercased().hasPrefix("connection:") && $0.lowercased().contains("close") }
                if lines.contains(where: { $0.lowercased().hasPrefix("transfer-encoding:") && $0.lowercased().contains("chunked") }) {
                    // Chunked: whole once the last (empty) chunk has come; the body is the chunks' data joined.
                    if let end = find(Array("\r\n0\r\n\r\n".utf8), from: headerEnd) {
                        let body = Self.dechunk(Array(buffered[headerEnd..<(end + 2)]))
                        buffered.removeFirst(end + 7)
                        return Reply(status: status, body: String(decoding: body, as: UTF8.self), closes: closes)
                    }
                } else if buffered.count >= headerEnd + length {
                    let body = String(decoding: buffered[headerEnd..<(headerEnd + length)], as: UTF8.self)
                    buffered.removeFirst(headerEnd + length)
                    return Reply(status: status, body: body, closes: closes)
                }
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw Closed() }
            buffered += chunk[..<count]
        }
    }

    private func find(_ pattern: [UInt8], from start: Int = 0) -> Int? {
        guard buffered.count >= start + pattern.count else { return nil }
        return (start...(buffered.count - pattern.count)).first { buffered[$0..<($0 + pattern.count)].elementsEqual(pattern) }
    }

    /// The data of chunks `SIZE\r\nDATA\r\n...`, up to the last one.
    private static func dechunk(_ bytes: [UInt8]) -> [UInt8] {
        var data: [UInt8] = []
        var index = 0
        while let lineEnd = (index..<max(index, bytes.count - 1)).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 }),
              let size = Int(String(decoding: bytes[index..<lineEnd], as: UTF8.self), radix: 16), size > 0,
              lineEnd + 2 + size <= bytes.count {
            data += bytes[(lineEnd + 2)..<(lineEnd + 2 + size)]
            index = lineEnd + 2 + size + 2
        }
        return data
    }
}
