import Foundation
import Glibc
import Synchronization

/// A tiny HTTP/1.1 origin for tests, over POSIX sockets, one thread per connection.
///
/// Listens on 127.0.0.1 and 127.0.0.2 (Linux routes all of 127/8 to `lo`) on ephemeral ports, counts requests per
/// listener and path, and misbehaves on demand depending on the path (see `respond`).
public final class LoopbackOrigin: @unchecked Sendable {
    public struct Listener: Sendable { public let host: String; public let port: UInt16; let descriptor: Int32 }

    public let primary: Listener
    public let secondary: Listener
    /// Directory served by `/file/<anything>/<name>`: the file `<name>` in it, as `image/jpeg` or `image/png`.
    public var fileRoot: URL? {
        get { fileDirectory.withLock { $0 } }
        set { fileDirectory.withLock { $0 = newValue } }
    }
    private let fileDirectory = Mutex<URL?>(nil)
    private let counters = Mutex<[String: Int]>([:])
    private let requestHeaders = Mutex<[String: [String: String]]>([:])
    private let isStopped = Atomic<Bool>(false)
    private let connections = Mutex<[String: Int]>([:])
    /// Requests currently inside a `/slow/` handler, and the most seen at once.
    private let slowInFlight = Mutex<(current: Int, peak: Int)>((0, 0))

    /// One origin per test process, started on first use; tests use distinct paths so its counters stay meaningful.
    public static func shared() throws -> LoopbackOrigin {
        try sharedInstance.get()
    }

    private static let sharedInstance = Result { try LoopbackOrigin() }

    public init() throws {
        primary = try Self.listen(host: "127.0.0.1")
        secondary = try Self.listen(host: "127.0.0.2")
        for listener in [primary, secondary] {
            let thread = Thread { [self] in acceptLoop(listener) }
            thread.start()
        }
    }

    public func stop() {
        isStopped.store(true, ordering: .sequentiallyConsistent)
        for listener in [primary, secondary] {
            shutdown(listener.descriptor, Int32(SHUT_RDWR))
            close(listener.descriptor)
        }
    }

    public func url(_ path: String, onSecondary: Bool = false) -> String {
        let listener = onSecondary ? secondary : primary
        return "http://\(listener.host):\(listener.port)\(path)"
    }

    /// Requests that reached `path` (without query) on the given listener.
    public func count(_ path: String, onSecondary: Bool = false) -> Int {
        let host = onSecondary ? secondary.host : primary.host
        return counters.withLock { $0["\(host)\(path)"] ?? 0 }
    }

    /// All requests that reached a listener.
    public func totalCount(onSecondary: Bool) -> Int {
        let host = onSecondary ? secondary.host : primary.host
        return counters.withLock { $0.filter { $0.key.hasPrefix(host + "/") }.values.reduce(0, +) }
    }

    /// TCP connections accepted so far by a listener.
    public func connectionCount(onSecondary: Bool = false) -> Int {
        connections.withLock { $0[onSecondary ? secondary.host : primary.host] ?? 0 }
    }

    /// Returns the peak number of simultaneous `/slow/` requests since the last call, and resets it.
    public func takeSlowPeak() -> Int {
        slowInFlight.withLock { state in
            defer { state.peak = state.current }
            return state.peak
        }
    }

    /// Lowercased request headers of the last request to `path` on the primary listener.
    public func lastHeaders(_ path: String) -> [String: String]? {
        requestHeaders.withLock { $0["\(primary.host)\(path)"] }
    }

    /// The deterministic body served by `/bytes/<seed>/<size>` (a HEAD there gets the headers alone).
    public static func body(seed: Int, size: Int) -> Data {
        var bytes = [UInt8](repeating: 0, count: size)
        for index in 0..<size { bytes[index] = UInt8(truncatingIfNeeded: index &* 31 &+ seed &* 7 &+ (index >> 8)) }
        return Data(bytes)
    }

    // MARK: - Sockets

    private static func listen(host: String) throws -> Listener {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        inet_pton(AF_INET, host, &address.sin_addr)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(descriptor, 1024) == 0 else { close(descriptor); throw POSIXError(.EADDRNOTAVAIL) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return Listener(host: host, port: UInt16(bigEndian: address.sin_port), descriptor: descriptor)
    }

    private func acceptLoop(_ listener: Listener) {
        while !isStopped.load(ordering: .sequentiallyConsistent) {
            let client = accept(listener.descriptor, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            connections.withLock { $0[listener.host, default: 0] += 1 }
            let thread = Thread { [self] in serve(client, host: listener.host) }
            thread.start()
        }
    }

    private struct Request { var method: String; var path: String; var query: [String: String]; var headers: [String: String] }

    private func serve(_ descriptor: Int32, host: String) {
        var buffer = [UInt8]()
        var keepAlive = true
        while keepAlive, !isStopped.load(ordering: .sequentiallyConsistent) {
            guard let request = readRequest(descriptor, buffer: &buffer) else { break }
            let key = "\(host)\(request.path)"
            let count = counters.withLock { counters -> Int in
                counters[key, default: 0] += 1
                return counters[key]!
            }
            requestHeaders.withLock { $0[key] = request.headers }
            keepAlive = respond(to: request, count: count, on: descriptor)
        }
        close(descriptor)
    }

    private func readRequest(_ descriptor: Int32, buffer: inout [UInt8]) -> Request? {
        let terminator: [UInt8] = [13, 10, 13, 10]
        while true {
            if let end = buffer.firstRange(of: terminator) {
                let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                buffer.removeSubrange(..<end.upperBound)
                var lines = head.components(separatedBy: "\r\n")
                let requestLine = lines.removeFirst().split(separator: " ")
                guard requestLine.count >= 2 else { return nil }
                let target = String(requestLine[1])
                let pieces = target.split(separator: "?", maxSplits: 1)
                var query: [String: String] = [:]
                if pieces.count == 2 {
                    for pair in pieces[1].split(separator: "&") {
                        let kv = pair.split(separator: "=", maxSplits: 1)
                        query[String(kv[0])] = kv.count == 2 ? String(kv[1]).removingPercentEncoding ?? "" : ""
                    }
                }
                var headers: [String: String] = [:]
                for line in lines {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                return Request(method: String(requestLine[0]), path: String(pieces[0]), query: query, headers: headers)
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let received = recv(descriptor, &chunk, chunk.count, 0)
            if received <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<received])
            if buffer.first == 0x16 {
                // A TLS ClientHello: answer in plain HTTP, as a misconfigured origin would.
                send(descriptor, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
                return nil
            }
            if buffer.count > 65536 { return nil }
        }
    }

    @discardableResult
    private func send(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    @discardableResult
    private func send(_ descriptor: Int32, _ text: String) -> Bool { send(descriptor, Array(text.utf8)) }

    @discardableResult
    private func send(_ descriptor: Int32, _ data: Data) -> Bool { send(descriptor, [UInt8](data)) }

    private func head(_ status: Int, _ headers: [(String, String)]) -> String {
        var text = "HTTP/1.1 \(status) Status\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        return text + "\r\n"
    }

    private func sendBody(_ descriptor: Int32, status: Int = 200, type: String = "image/jpeg", extra: [(String, String)] = [], _ body: Data) -> Bool {
        send(descriptor, head(status, [("Content-Type", type), ("Content-Length", "\(body.count)")] + extra))
            && send(descriptor, body)
    }

    /// Waits until the peer hangs up (or the origin stops, or 30 s pass).
    private func waitForHangUp(_ descriptor: Int32) {
        let limit = ContinuousClock.now + .seconds(30)
        var scratch = [UInt8](repeating: 0, count: 4096)
        while !isStopped.load(ordering: .sequentiallyConsistent), ContinuousClock.now < limit {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            if poll(&entry, 1, 100) > 0 {
                if recv(descriptor, &scratch, scratch.count, 0) <= 0 { return }
            }
        }
    }

    private func resetConnection(_ descriptor: Int32) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
    }

    /// Serves one request; returns whether the connection may carry another.
    private func respond(to request: Request, count: Int, on descriptor: Int32) -> Bool {
        let parts = request.path.split(separator: "/").map(String.init)
        guard let route = parts.first else { return sendBody(descriptor, status: 404, type: "text/plain", Data("no".utf8)) }
        switch route {
        case "bytes" where parts.count == 3:
            let size = Int(parts[2]) ?? 0
            if request.method == "HEAD" {
                return send(descriptor, head(200, [("Content-Type", "image/jpeg"), ("Content-Length", "\(size)")]))
            }
            return sendBody(descriptor, LoopbackOrigin.body(seed: Int(parts[1]) ?? 0, size: size))
        case "drip" where parts.count == 3:
            let rate = max(1, Int(parts[1]) ?? 1), total = Int(parts[2]) ?? 0
            guard send(descriptor, head(200, [("Content-Type", "image/jpeg"), ("Content-Length", "\(total)")])) else { return false }
            for _ in 0..<total {
                guard !isStopped.load(ordering: .sequentiallyConsistent), send(descriptor, [0x41]) else { return false }
                usleep(UInt32(1_000_000 / rate))   // the fault itself: a body dripped at `rate` bytes a second
            }
            return false
        case "slow" where parts.count >= 2:
            // /slow/<milliseconds>/<anything>: answers after a pause; tracks how many such requests overlap.
            slowInFlight.withLock { state in
                state.current += 1
                state.peak = max(state.peak, state.current)
            }
            usleep(UInt32(max(0, Int(parts[1]) ?? 0)) * 1000)   // the fault itself: an answer that takes this long
            slowInFlight.withLock { $0.current -= 1 }
            return sendBody(descriptor, LoopbackOrigin.body(seed: 12, size: 100))
        case "file" where parts.count >= 2:
            guard let root = fileRoot, let name = parts.last, !name.hasPrefix("."),
                  let contents = FileManager.default.contents(atPath: root.appendingPathComponent(name).path) else {
                return sendBody(descriptor, status: 404, type: "text/plain", Data("no such file".utf8))
            }
            return sendBody(descriptor, type: name.hasSuffix(".png") ? "image/png" : "image/jpeg", contents)
        case "stall":
            send(descriptor, head(200, [("Content-Type", "image/jpeg"), ("Content-Length", "1000")]))
            waitForHangUp(descriptor)
            return false
        case "truncated":
            send(descriptor, head(200, [("Content-Type", "image/jpeg"), ("Content-Length", "1000")]))
            send(descriptor, [UInt8](repeating: 7, count: 500))
            return false
        case "endless-chunked":
            send(descriptor, head(200, [("Content-Type", "image/jpeg"), ("Transfer-Encoding", "chunked")]))
            let chunk = Array("10000\r\n".utf8) + [UInt8](repeating: 1, count: 0x10000) + Array("\r\n".utf8)
            while !isStopped.load(ordering: .sequentiallyConsistent), send(descriptor, chunk) {}
            return false
        case "endless-close":
            send(descriptor, head(200, [("Content-Type", "image/jpeg"), ("Connection", "close")]))
            let chunk = [UInt8](repeating: 2, count: 0x10000)
            while !isStopped.load(ordering: .sequentiallyConsistent), send(descriptor, chunk) {}
            return false
        case "typed" where parts.count == 3:
            // /typed/<format>/<size>: a MediaSamples file of that format, padded to <size> bytes, with its length.
            guard let sample = MediaSamples.all[parts[1]] else { return sendBody(descriptor, status: 404, type: "text/plain", Data()) }
            let size = max(sample.count, Int(parts[2]) ?? 0)
            return sendBody(descriptor, type: "application/octet-stream", sample + Data(count: size - sample.count))
        case "endless-typed" where parts.count == 2:
            // /endless-typed/<format>: a MediaSamples file's first bytes, then an endless chunked body.
            guard let sample = MediaSamples.all[parts[1]] else { return sendBody(descriptor, status: 404, type: "text/plain", Data()) }
            send(descriptor, head(200, [("Content-Type", "application/octet-stream"), ("Transfer-Encoding", "chunked")]))
            let first = Array(String(sample.count, radix: 16).utf8) + Array("\r\n".utf8) + [UInt8](sample) + Array("\r\n".utf8)
            guard send(descriptor, first) else { return false }
            let chunk = Array("10000\r\n".utf8) + [UInt8](repeating: 1, count: 0x10000) + Array("\r\n".utf8)
            while !isStopped.load(ordering: .sequentiallyConsistent), send(descriptor, chunk) {}
            return false
        case "huge-length":
            send(descriptor, head(200, [("Content-Type", "image/jpeg"), ("Content-Length", "50000000")]))
            send(descriptor, [UInt8](repeating: 3, count: 1000))
            waitForHangUp(descriptor)
            return false
        case "chain":
            // /chain/301,302,307 redirects with each code in turn, then serves /bytes/1/1000.
            var codes = parts.count > 1 ? parts[1].split(separator: ",").map(String.init) : []
            guard !codes.isEmpty, let code = Int(codes.removeFirst()) else {
                return sendBody(descriptor, LoopbackOrigin.body(seed: 1, size: 1000))
            }
            let next = codes.isEmpty ? "/chain" : "/chain/" + codes.joined(separator: ",")
            return send(descriptor, head(code, [("Location", next), ("Content-Length", "0")]))
        case "loop":
            return send(descriptor, head(302, [("Location", "/loop"), ("Content-Length", "0")]))
        case "to":
            return send(descriptor, head(302, [("Location", request.query["location"] ?? "/"), ("Content-Length", "0")]))
        case "status" where parts.count == 2:
            var extra: [(String, String)] = []
            if let after = request.query["retry-after"] { extra.append(("Retry-After", after)) }
            return sendBody(descriptor, status: Int(parts[1]) ?? 500, type: "text/plain", extra: extra, Data("status".utf8))
        case "flaky" where parts.count >= 2:
            if count == 1 {
                var extra: [(String, String)] = []
                if let after = request.query["retry-after"] { extra.append(("Retry-After", after)) }
                return sendBody(descriptor, status: Int(parts[1]) ?? 503, type: "text/plain", extra: extra, Data("later".utf8))
            }
            return sendBody(descriptor, LoopbackOrigin.body(seed: 2, size: 2000))
        case "wrongtype":
            let png: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] + [UInt8](repeating: 0, count: 56)
            return sendBody(descriptor, type: "text/html; charset=utf-8", Data(png))
        case "gzip" where parts.count == 2:
            let size = Int(parts[1]) ?? 0
            if request.headers["accept-encoding"]?.contains("gzip") == true {
                return sendBody(descriptor, extra: [("Content-Encoding", "gzip")], GzipEncoder.zeros(count: size))
            }
            return sendBody(descriptor, Data(count: size))
        case "reset":
            resetConnection(descriptor)
            return false
        case "resetonce" where count == 1:
            resetConnection(descriptor)
            return false
        case "resetonce":
            return sendBody(descriptor, LoopbackOrigin.body(seed: 3, size: 3000))
        case "etag":
            let validators = [("ETag", "\"v1\""), ("Last-Modified", "Wed, 21 Oct 2015 07:28:00 GMT"),
                              ("Cache-Control", "public, max-age=600")]
            if request.headers["if-none-match"] == "\"v1\""
                || request.headers["if-modified-since"] == "Wed, 21 Oct 2015 07:28:00 GMT" {
                return send(descriptor, head(304, validators))
            }
            return sendBody(descriptor, extra: validators, LoopbackOrigin.body(seed: 4, size: 4000))
        default:
            return sendBody(descriptor, status: 404, type: "text/plain", Data("not found".utf8))
        }
    }
}
