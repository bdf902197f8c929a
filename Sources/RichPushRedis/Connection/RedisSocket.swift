import COpenSSL
import Foundation
import RichPushCore
#if canImport(Glibc)
import Glibc
#endif

/// A blocking TCP connection to Redis, in TLS over OpenSSL when the endpoint is `rediss://`. One path for both, so
/// plain and TLS connections keep the same timeouts, reconnects and error classes.
///
/// Every read and write is bounded by the socket timeout (`SO_RCVTIMEO`/`SO_SNDTIMEO`); connecting is bounded by the
/// same timeout per address tried. Not thread-safe: its ``RedisConnection`` is confined to one queue.
final class RedisSocket {
    /// `host:port`, for messages.
    let address: String
    private var descriptor: Int32
    /// The `SSL` object of a TLS connection, nil for plain TCP.
    private var tls: OpaquePointer?

    private init(address: String, descriptor: Int32, tls: OpaquePointer?) {
        self.address = address
        self.descriptor = descriptor
        self.tls = tls
    }

    deinit { close() }

    /// Resolves the host, connects to the first address that answers, then runs the TLS handshake when `tls` is set,
    /// checking the certificate against the host name (or IP address) unless the settings say not to.
    /// Throws `.connection` for network failures and `.tlsHandshake` when the server's TLS answer is refused.
    static func open(host: String, port: Int, timeout: Duration, tls: TLSClientContext?) throws(QueueError) -> RedisSocket {
        _ = ignoreBrokenPipes
        let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let descriptor = try connect(host: host, port: port, timeout: timeout, address: address)
        let socket = RedisSocket(address: address, descriptor: descriptor, tls: nil)
        socket.setTimeout(timeout)
        if let tls { try socket.startTLS(context: tls, host: host, port: port, timeout: timeout) }
        return socket
    }

    func close() {
        if let tls { SSL_free(tls) }
        tls = nil
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    /// Whether the server asked, during the TLS handshake, for a client certificate that this worker does not have
    /// (noted by `TLSClientContext`'s certificate callback, read once the handshake is done). A server that requires
    /// one refuses the session only after the handshake (TLS 1.3), often by resetting the connection, so the refusal
    /// itself may not say why.
    private(set) var serverAskedForMissingClientCertificate = false

    /// Sets the read and write timeout, e.g. longer than `BLOCK` for `XREADGROUP`.
    func setTimeout(_ duration: Duration) {
        let milliseconds = max(duration.roundedUpMilliseconds, 1)
        var value = timeval(tv_sec: Int(milliseconds / 1_000), tv_usec: Int((milliseconds % 1_000) * 1_000))
        let size = socklen_t(MemoryLayout<timeval>.size)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, size)
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &value, size)
    }

    /// Writes every byte. Throws `.connection` when the connection broke or the timeout passed.
    func write(_ bytes: UnsafeRawBufferPointer) throws(QueueError) {
        var offset = 0
        while offset < bytes.count {
            let start = bytes.baseAddress! + offset
            let remaining = bytes.count - offset
            let written: Int
            if let tls {
                ERR_clear_error()
                let result = SSL_write(tls, start, Int32(clamping: remaining))
                guard result > 0 else { throw failure(of: tls, result: result, doing: "writing") }
                written = Int(result)
            } else {
                let result = send(descriptor, start, remaining, Int32(MSG_NOSIGNAL))
                if result < 0 && errno == EINTR { continue }
                guard result > 0 else { throw systemFailure(doing: "writing") }
                written = result
            }
            offset += written
        }
    }

    /// Reads what has arrived, at least one byte. Throws `.connection` when the server closed the connection, it
    /// broke, or the timeout passed; `.tlsHandshake` when the server refused this worker's certificate (TLS 1.3
    /// says so only on the first read).
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(QueueError) -> Int {
        while true {
            if let tls {
                ERR_clear_error()
                let result = SSL_read(tls, buffer.baseAddress, Int32(clamping: buffer.count))
                guard result > 0 else { throw failure(of: tls, result: result, doing: "reading") }
                return Int(result)
            }
            let result = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if result < 0 && errno == EINTR { continue }
            if result == 0 { throw .connection(reason: "\(address): the server closed the connection") }
            guard result > 0 else { throw systemFailure(doing: "reading") }
            return result
        }
    }

    // MARK: Connecting

    private static func connect(host: String, port: Int, timeout: Duration, address: String) throws(QueueError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0, let list else {
            throw .connection(reason: "\(address): cannot resolve the host: \(String(cString: gai_strerror(resolved)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry?.pointee {
            entry = current.ai_next
            let descriptor = socket(current.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), current.ai_protocol)
            guard descriptor >= 0 else {
                lastError = String(cString: strerror(errno))
                continue
            }
            if let error = connect(descriptor, to: current, timeout: timeout) {
                lastError = error
                Glibc.close(descriptor)
                continue
            }
            var enabled: Int32 = 1
            setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &enabled, socklen_t(MemoryLayout<Int32>.size))
            return descriptor
        }
        throw .connection(reason: "\(address): \(lastError)")
    }

    /// A non-blocking `connect` waited for with `poll`, then the socket made blocking again. Returns the error, if any.
    private static func connect(_ descriptor: Int32, to address: addrinfo, timeout: Duration) -> String? {
        let flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        if Glibc.connect(descriptor, address.ai_addr, address.ai_addrlen) != 0 {
            guard errno == EINPROGRESS else { return String(cString: strerror(errno)) }
            var waiting = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            let milliseconds = Int32(clamping: max(timeout.roundedUpMilliseconds, 1))
            var ready: Int32
            repeat { ready = poll(&waiting, 1, milliseconds) } while ready < 0 && errno == EINTR
            if ready == 0 { return "connection timed out after \(timeout)" }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length)
            if ready < 0 || error != 0 { return String(cString: strerror(ready < 0 ? errno : error)) }
        }
        _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK)
        return nil
    }

    // MARK: TLS

    private func startTLS(context: TLSClientContext, host: String, port: Int, timeout: Duration) throws(QueueError) {
        ERR_clear_error()
        guard let tls = SSL_new(context.context) else {
            throw .tlsSetup(reason: "cannot create a TLS connection: \(TLSErrorQueue.drain().text)")
        }
        self.tls = tls
        SSL_set_fd(tls, descriptor)
        let isAddress = Self.isIPAddress(host)
        if !isAddress {
            // SNI names a host, never an address (RFC 6066, section 3).
            _ = host.withCString { SSL_ctrl(tls, SSL_CTRL_SET_TLSEXT_HOSTNAME, Int(TLSEXT_NAMETYPE_host_name), UnsafeMutableRawPointer(mutating: $0)) }
        }
        if context.settings.verifiesServer {
            let checked = isAddress
                ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(tls), host)
                : SSL_set1_host(tls, host)
            guard checked == 1 else { throw .tlsSetup(reason: "cannot check the certificate against \(host)") }
        }
        let result = SSL_connect(tls)
        guard result == 1 else { throw handshakeFailure(of: tls, result: result, host: host, port: port, timeout: timeout) }
        serverAskedForMissingClientCertificate = SSL_get_ex_data(tls, 0) != nil
    }

    /// Why the handshake failed, in words the operator can act on: the certificate's own fault first, then a server
    /// that does not speak TLS on this port, then what OpenSSL said.
    private func handshakeFailure(
        of tls: OpaquePointer, result: Int32, host: String, port: Int, timeout: Duration
    ) -> QueueError {
        let savedErrno = errno
        let verification = SSL_get_verify_result(tls)
        if verification != X509_V_OK {
            return .tlsHandshake(endpoint: address, reason: Self.describeVerification(verification, host: host))
        }
        let kind = SSL_get_error(tls, result)
        let queued = TLSErrorQueue.drain()
        if queued.reason == SSL_R_WRONG_VERSION_NUMBER || queued.reason == SSL_R_PACKET_LENGTH_TOO_LONG
            || queued.reason == SSL_R_UNEXPECTED_RECORD {
            return .tlsHandshake(endpoint: address, reason: Self.plainTextPort + " (\(queued.text))")
        }
        if kind == SSL_ERROR_WANT_READ || kind == SSL_ERROR_WANT_WRITE {
            // A plain-text Redis waits, silent, for the end of a line that a ClientHello seldom holds: ask it in
            // plain text whether that is what listens here.
            if Self.answersPlainText(host: host, port: port, timeout: timeout) {
                return .tlsHandshake(endpoint: address, reason: Self.plainTextPort + " (it answers PING in plain text)")
            }
            return .connection(reason: "\(address): no TLS handshake answer within \(timeout)")
        }
        if kind == SSL_ERROR_SYSCALL && queued.reason == 0 {
            return .connection(reason: "\(address): the connection closed during the TLS handshake "
                + "(\(savedErrno == 0 ? "end of file" : String(cString: strerror(savedErrno)))); is this a TLS port?")
        }
        return .tlsHandshake(endpoint: address, reason: "TLS handshake failed: \(queued.text)")
    }

    private static func describeVerification(_ code: Int, host: String) -> String {
        let detail = String(cString: X509_verify_cert_error_string(code))
        switch Int32(code) {
        case X509_V_ERR_CERT_HAS_EXPIRED:
            return "the server's certificate has expired (\(detail))"
        case X509_V_ERR_CERT_NOT_YET_VALID:
            return "the server's certificate is not valid yet (\(detail)); check this host's clock"
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
            return "the server's certificate is not for \(host) (\(detail)); use the host name the certificate names"
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
            X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
            X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
            return "the server's certificate is signed by an unknown CA (\(detail)); "
                + "give its CA with --redis-tls-ca-file"
        default:
            return "the server's certificate was refused (\(detail))"
        }
    }

    /// An `SSL_read` or `SSL_write` that returned `result` ≤ 0.
    private func failure(of tls: OpaquePointer, result: Int32, doing action: String) -> QueueError {
        let savedErrno = errno
        let kind = SSL_get_error(tls, result)
        let queued = TLSErrorQueue.drain()
        if queued.reason == SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED {
            return .tlsHandshake(endpoint: address, reason: Self.clientCertificateRequired)
        }
        if queued.reason == SSL_R_SSLV3_ALERT_BAD_CERTIFICATE || queued.reason == SSL_R_SSLV3_ALERT_CERTIFICATE_UNKNOWN
            || queued.reason == SSL_R_TLSV1_ALERT_UNKNOWN_CA {
            return .tlsHandshake(endpoint: address, reason: "the server refused this worker's client certificate (\(queued.text))")
        }
        switch kind {
        case SSL_ERROR_ZERO_RETURN:
            return .connection(reason: "\(address): the server closed the connection")
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return .connection(reason: "\(address): timed out \(action)")
        case SSL_ERROR_SYSCALL where queued.reason == 0:
            let cause = savedErrno == 0 ? "the server closed the connection" : String(cString: strerror(savedErrno))
            return .connection(reason: "\(address): \(cause)")
        default:
            return .connection(reason: "\(address): TLS error \(action): \(queued.text)")
        }
    }

    private func systemFailure(doing action: String) -> QueueError {
        let code = errno
        if code == EAGAIN || code == EWOULDBLOCK { return .connection(reason: "\(address): timed out \(action)") }
        return .connection(reason: "\(address): \(String(cString: strerror(code)))")
    }

    private static let plainTextPort =
        "the server does not speak TLS on this port: rediss:// needs the port of its --tls-port, redis:// the plain one"

    /// Whether a plain-text connection to the port gets a RESP answer to `PING` (`+PONG`, or an error such as
    /// `-NOAUTH`) within a second.
    private static func answersPlainText(host: String, port: Int, timeout: Duration) -> Bool {
        guard let probe = try? RedisSocket.open(host: host, port: port, timeout: min(timeout, .seconds(1)), tls: nil) else {
            return false
        }
        defer { probe.close() }
        let ping = Array("PING\r\n".utf8)
        var answer = [UInt8](repeating: 0, count: 64)
        let sent = ping.withUnsafeBytes { bytes in Result { () throws(QueueError) in try probe.write(bytes) } }
        guard case .success = sent else { return false }
        let received = answer.withUnsafeMutableBytes { buffer in Result { () throws(QueueError) in try probe.read(into: buffer) } }
        guard case .success(let count) = received, count > 0 else { return false }
        return answer[0] == UInt8(ascii: "+") || answer[0] == UInt8(ascii: "-")
    }

    static let clientCertificateRequired =
        "the server requires a client certificate, and this worker has none (--redis-tls-certificate and --redis-tls-key)"

    private static func isIPAddress(_ host: String) -> Bool {
        var storage = in6_addr()
        return inet_pton(AF_INET, host, &storage) == 1 || inet_pton(AF_INET6, host, &storage) == 1
    }

    /// OpenSSL writes with plain `write(2)`: a server that vanished mid-pipeline would raise SIGPIPE and kill the
    /// process instead of returning EPIPE. Plain TCP sends with `MSG_NOSIGNAL`; for TLS, SIGPIPE is ignored
    /// process-wide (as libcurl does too), once, on the first connect.
    private static let ignoreBrokenPipes: Void = {
        _ = signal(SIGPIPE, SIG_IGN)
    }()
}
