import Foundation
import Glibc
import Synchronization
import TestSupport
import XCTest
@testable import RichPushHTTP

/// `HTTPServer` against hostile or careless clients: one address holding every connection it can, a second server
/// on a taken port, keep-alive clients whose next request races shutdown.
final class HTTPServerLimitsTests: XCTestCase {
    func testSlowlorisFromOneAddressLeavesHealthAnsweredFromAnother() throws {
        // 1,100 connections plus the server's own: more than the common soft limit of 1,024 descriptors.
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < 4096 {
            limit.rlim_cur = min(limit.rlim_max, 4096)
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        let server = try HTTPServer(configuration: .init(address: "127.0.0.1", port: 0, threads: 2)) { _ in
            HTTPResponse(status: 200, contentType: "text/plain", body: Data("ok".utf8))
        }
        // 127.0.0.1 opens 1,100 connections (past the per-address cap and the total limit) and sends a header line
        // on each every 300 ms, never ending the headers.
        var slow: [Int32] = []
        defer { slow.forEach { close($0) } }
        for _ in 0..<1100 {
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard socket >= 0 else { break }
            var address = loopback(port: server.port, host: "127.0.0.1")
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            slow.append(socket)
        }
        XCTAssertEqual(slow.count, 1100)
        let started = ContinuousClock.now
        var slowest = Duration.zero
        var line = 0
        while ContinuousClock.now - started < .seconds(3) {
            let header = line == 0 ? "GET /healthz HTTP/1.1\r\nHost: x\r\n" : "X-Slow-\(line): 1\r\n"
            for socket in slow { _ = header.withCString { send(socket, $0, strlen($0), Int32(MSG_NOSIGNAL)) } }
            line += 1
            // /healthz from 127.0.0.2 (also loopback, so another client address to the server).
            let asked = ContinuousClock.now
            let reply = try KeepAliveClient(port: server.port, source: "127.0.0.2").send("GET", "/healthz")
            XCTAssertEqual(reply.status, 200)
            slowest = max(slowest, ContinuousClock.now - asked)
            usleep(300_000)   // the attack's pace, one header line per connection every 300 ms: the scenario, not a wait
        }
        // Starved, /healthz would wait for a connection slot that never comes free (the headers never end).
        XCTAssertLessThan(slowest, .seconds(1), "/healthz from another address answers at once")
    }

    func testASecondServerOnTheSameAddressFailsToStart() throws {
        let first = try HTTPServer(configuration: .init(address: "127.0.0.1", port: 0, threads: 1)) { _ in
            HTTPResponse(status: 200, contentType: "text/plain", body: Data())
        }
        XCTAssertThrowsError(
            try HTTPServer(configuration: .init(address: "127.0.0.1", port: first.port, threads: 1)) { _ in
                HTTPResponse(status: 200, contentType: "text/plain", body: Data())
            }
        ) { error in
            guard case .cannotListen(_, let port, let reason) = error as? HTTPServerError else { return XCTFail("\(error)") }
            XCTAssertEqual(port, first.port)
            XCTAssertTrue(reason.contains("in use"), reason)
        }
    }

    /// Keep-alive clients send their next request soon after an answer arrives, unless it said `Connection: close`.
    /// Through shutdown, every request a client sent gets an answer (200, or 503 `shutting_down`): none meets EOF.
    func testShutdownUnderKeepAliveLoadLeavesNoSentRequestUnanswered() async throws {
        for _ in 0..<10 {
            // Answered inline, so nothing is in flight most of the time: shutdown's wait is over at once.
            let server = try HTTPServer(configuration: .init(address: "127.0.0.1", port: 0, threads: 2)) { _ in
                HTTPResponse(status: 200, contentType: "text/plain", body: Data("ok".utf8))
            }
            let port = server.port
            let unanswered = Atomic<Int>(0)
            let answered = Atomic<Int>(0)
            let clients = (0..<8).map { _ in
                Thread {
                    guard let client = try? KeepAliveClient(port: port) else { return }
                    while true {
                        usleep(UInt32.random(in: 0...2000))   // a client's own work between requests
                        guard let reply = try? client.send("POST", "/enrich", body: "{}") else {
                            unanswered.add(1, ordering: .relaxed)
                            return
                        }
                        answered.add(1, ordering: .relaxed)
                        if reply.closes { return }
                    }
                }
            }
            clients.forEach { $0.start() }
            try await waitUntil(timeout: .seconds(10), "the load to run", interval: .milliseconds(1)) {
                answered.load(ordering: .relaxed) > 50
            }
            await server.shutdown(gracePeriod: .seconds(5))
            try await waitUntil(timeout: .seconds(10), "every client to stop", interval: .milliseconds(5)) {
                !clients.contains(where: { $0.isExecuting })
            }
            XCTAssertGreaterThan(answered.load(ordering: .relaxed), 50)
            XCTAssertEqual(unanswered.load(ordering: .relaxed), 0, "a request sent on an open keep-alive connection met EOF")
        }
    }
}

func loopback(port: Int, host: String) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr(host)
    return address
}
