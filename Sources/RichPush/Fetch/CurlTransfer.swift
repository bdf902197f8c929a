import CCurl
import CRichPushCurl
import Foundation
import Glibc
import Synchronization

/// The raw result of one attempt, before HTTP status policy and retries are applied.
struct TransferResponse: Sendable {
    var status: Int
    var body: Data
    var headers: [String: String]
    var finalURL: String
    var redirectCount: Int
    var timings: FetchTimings
}

/// A failed attempt. `isRetryable` marks connection resets, the only network failure worth a second try.
struct TransferFailure: Error, Sendable {
    var error: FetchError
    var isRetryable: Bool = false
}

typealias TransferOutcome = Result<TransferResponse, TransferFailure>

/// Policy a transfer enforces from inside libcurl callbacks.
struct TransferPolicy: Sendable {
    var maximumBytes: Int
    var stallTimeout: Duration
    var addresses: AddressPolicy
    var allowedHosts: Set<String>?
    var decodesContent: Bool
}

/// One libcurl easy handle plus everything its callbacks touch.
///
/// Thread confinement, not locking, keeps this safe: it is configured by the submitting task, handed to the poll
/// thread through the loop's `Mutex` (which orders those writes before every later read), and from then on only the
/// poll thread touches it until it resumes `continuation` exactly once. Only `cancelRequested` crosses threads
/// afterwards, and it is atomic.
final class CurlTransfer: @unchecked Sendable {
    let url: String
    let deadline: ContinuousClock.Instant
    let policy: TransferPolicy
    private(set) var easy: UnsafeMutableRawPointer?
    private var requestHeaders: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>

    let cancelRequested = Atomic<Bool>(false)
    var continuation: CheckedContinuation<TransferOutcome, Never>?
    private var isFinished = false
    var isAttached = false

    // Written by callbacks on the poll thread.
    private var body = Data()
    private var bodyBytesSeen = 0
    private var status = 0
    private var headers: [String: String] = [:]
    private var recordedFailure: FetchError?
    /// Start of the current quiet period; nil until a connection exists, so queueing for a pooled connection is
    /// not mistaken for a stall.
    var lastActivity: ContinuousClock.Instant?

    var key: UInt { UInt(bitPattern: easy) }

    init(request: FetchRequest, configuration: FetchConfiguration, policy: TransferPolicy) throws(FetchError) {
        url = request.url
        deadline = request.deadline
        self.policy = policy
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        guard let handle = curl_easy_init() else {
            throw .connection(url: request.url, reason: "libcurl could not create a transfer")
        }
        easy = handle
        if !configure(handle, request: request, configuration: configuration) {
            throw .invalidConfiguration(reason: "libcurl rejected an option: \(errorMessage)")
        }
    }

    deinit {
        release()
        errorBuffer.deallocate()
    }

    /// Frees the easy handle. Must run after it left the multi handle.
    func release() {
        if let easy { curl_easy_cleanup(easy) }
        easy = nil
        if let requestHeaders { curl_slist_free_all(requestHeaders) }
        requestHeaders = nil
    }

    private func configure(_ handle: UnsafeMutableRawPointer, request: FetchRequest, configuration: FetchConfiguration) -> Bool {
        let context = Unmanaged.passUnretained(self).toOpaque()
        let remaining = Self.milliseconds(request.deadline - .now, minimum: 1)
        let connect = min(remaining, Self.milliseconds(configuration.connectTimeout, minimum: 1))
        // libcurl's low-speed window is whole seconds; the poll loop enforces the precise stall timeout and this
        // is the backstop, so it is set a second later than ours.
        let stallSeconds = max(1, Int((configuration.stallTimeout.components.seconds)) + 1)

        var ok = true
        func set(_ option: CURLoption, _ value: Int) { ok = ok && richpush_easy_setopt_long(handle, option, value) == CURLE_OK }
        func set(_ option: CURLoption, _ value: String) { ok = ok && richpush_easy_setopt_string(handle, option, value) == CURLE_OK }
        func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?) {
            ok = ok && richpush_easy_setopt_pointer(handle, option, pointer) == CURLE_OK
        }

        set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
        set(CURLOPT_URL, request.url)
        set(CURLOPT_NOSIGNAL, 1)
        set(CURLOPT_PROTOCOLS_STR, "http,https")
        set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        set(CURLOPT_FOLLOWLOCATION, 1)
        set(CURLOPT_MAXREDIRS, max(0, configuration.maximumRedirects))
        set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        set(CURLOPT_PIPEWAIT, 1)
        set(CURLOPT_TIMEOUT_MS, remaining)
        set(CURLOPT_CONNECTTIMEOUT_MS, connect)
        set(CURLOPT_LOW_SPEED_LIMIT, 1)
        set(CURLOPT_LOW_SPEED_TIME, stallSeconds)
        set(CURLOPT_SSL_VERIFYPEER, 1)
        set(CURLOPT_SSL_VERIFYHOST, 2)
        // An empty proxy disables http_proxy & co. from the environment: the SSRF guard must see the origin.
        set(CURLOPT_PROXY, "")
        set(CURLOPT_USERAGENT, configuration.userAgent)
        // Larger receive buffer than libcurl's 16 KiB default (the curl tool uses 100 KiB): fewer recv calls and
        // callbacks per image, at 64 KiB per in-flight transfer.
        set(CURLOPT_BUFFERSIZE, 64 * 1024)
        if configuration.acceptEncoding {
            set(CURLOPT_ACCEPT_ENCODING, "")
        } else if configuration.maximumBytes > 0 {
            ok = ok && richpush_easy_setopt_off_t(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(configuration.maximumBytes)) == CURLE_OK
        }

        if let tag = request.ifNoneMatch { requestHeaders = curl_slist_append(requestHeaders, "If-None-Match: \(Self.headerSafe(tag))") }
        if let date = request.ifModifiedSince {
            requestHeaders = curl_slist_append(requestHeaders, "If-Modified-Since: \(Self.headerSafe(date))")
        }
        if let requestHeaders { ok = ok && richpush_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, requestHeaders) == CURLE_OK }

        ok = ok && richpush_easy_setopt_write_function(handle, curlWriteCallback) == CURLE_OK
        set(CURLOPT_WRITEDATA, pointer: context)
        ok = ok && richpush_easy_setopt_header_function(handle, curlHeaderCallback) == CURLE_OK
        set(CURLOPT_HEADERDATA, pointer: context)
        ok = ok && richpush_easy_setopt_opensocket_function(handle, curlOpenSocketCallback) == CURLE_OK
        set(CURLOPT_OPENSOCKETDATA, pointer: context)
        ok = ok && richpush_easy_setopt_prereq_function(handle, curlPrereqCallback) == CURLE_OK
        set(CURLOPT_PREREQDATA, pointer: context)
        return ok
    }

    private static func headerSafe(_ value: String) -> String {
        String(value.filter { $0 != "\r" && $0 != "\n" })
    }

    static func milliseconds(_ duration: Duration, minimum: Int) -> Int {
        let (seconds, attoseconds) = duration.components
        let value = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return max(minimum, Int(clamping: value))
    }

    private var errorMessage: String { String(cString: errorBuffer) }

    // MARK: - Callbacks (poll thread)

    func receiveBody(_ data: UnsafeMutablePointer<CChar>?, count: Int) -> Int {
        lastActivity = .now
        bodyBytesSeen += count
        if bodyBytesSeen > policy.maximumBytes {
            recordedFailure = .tooLarge(url: url, limit: policy.maximumBytes)
            return 0
        }
        // Error bodies are only counted against the cap, never kept.
        if (200..<300).contains(status), let data, count > 0 {
            data.withMemoryRebound(to: UInt8.self, capacity: count) { body.append($0, count: count) }
        }
        return count
    }

    func receiveHeader(_ data: UnsafeMutablePointer<CChar>?, count: Int) -> Int {
        lastActivity = .now
        guard let data, count > 0 else { return count }
        // Byte-level parsing: this runs for every header line of every response, so it avoids Foundation.
        let line = UnsafeRawBufferPointer(start: data, count: count)
        var end = line.count
        while end > 0, line[end - 1] == 0x0d || line[end - 1] == 0x0a || line[end - 1] == 0x20 || line[end - 1] == 0x09 { end -= 1 }
        if end == 0 {
            return headersEnded() ? count : 0
        }
        if end >= 5, line[0] == 0x48, line[1] == 0x54, line[2] == 0x54, line[3] == 0x50, line[4] == 0x2f {  // "HTTP/"
            // A new response (redirect hop, 1xx, or the final one): forget the previous one's headers.
            headers = [:]
            body = Data()
            bodyBytesSeen = 0
            status = Self.statusCode(in: UnsafeRawBufferPointer(rebasing: line[0..<end]))
            return count
        }
        guard let colon = line[0..<end].firstIndex(of: 0x3a) else { return count }
        var valueStart = colon + 1
        while valueStart < end, line[valueStart] == 0x20 || line[valueStart] == 0x09 { valueStart += 1 }
        let name = String(decoding: line[0..<colon], as: UTF8.self).lowercased()
        let value = String(decoding: line[valueStart..<end], as: UTF8.self)
        if let existing = headers[name] { headers[name] = existing + ", " + value } else { headers[name] = value }
        return count
    }

    /// The three digits after the first space of a status line ("HTTP/1.1 200 OK", "HTTP/2 304").
    private static func statusCode(in line: UnsafeRawBufferPointer) -> Int {
        guard let space = line.firstIndex(of: 0x20) else { return 0 }
        var code = 0
        var index = space + 1
        while index < line.count, index < space + 4, (0x30...0x39).contains(line[index]) {
            code = code * 10 + Int(line[index] - 0x30)
            index += 1
        }
        return code
    }

    /// Rejects a redirect to a forbidden URL before libcurl connects anywhere, and an announced body over the
    /// cap before a single body byte is read.
    private func headersEnded() -> Bool {
        if (300..<400).contains(status), let location = headers["location"] {
            let hop = URLValidator.resolve(location, against: currentURL) ?? location
            if let problem = URLValidator.problem(with: hop, allowedHosts: policy.allowedHosts) {
                recordedFailure = problem
                return false
            }
            return true
        }
        guard (200..<300).contains(status), let length = headers["content-length"].flatMap({ Int($0) }) else { return true }
        // With decoding on, the announced length is the encoded size; the write callback caps decoded bytes.
        if policy.decodesContent, headers["content-encoding"] != nil { return true }
        if length > policy.maximumBytes {
            recordedFailure = .tooLarge(url: url, limit: policy.maximumBytes)
            return false
        }
        body.reserveCapacity(length)
        return true
    }

    func openSocket(purpose: curlsocktype, address: UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t {
        let family = address.pointee.family
        guard let peer = Self.peerAddress(address) else {
            recordedFailure = .blockedAddress(url: currentURL, ip: "family \(family)")
            return CURL_SOCKET_BAD
        }
        if policy.addresses.denialReason(for: peer) != nil {
            // libcurl may try further addresses of the host; keep the first refusal for the error.
            if recordedFailure == nil { recordedFailure = .blockedAddress(url: currentURL, ip: peer.description) }
            return CURL_SOCKET_BAD
        }
        let descriptor = socket(family, address.pointee.socktype | Int32(SOCK_CLOEXEC.rawValue), address.pointee.protocol)
        if descriptor >= 0 {
            if case .blockedAddress = recordedFailure { recordedFailure = nil }
            lastActivity = .now
        }
        return descriptor
    }

    private static func peerAddress(_ address: UnsafeMutablePointer<curl_sockaddr>) -> IPAddress? {
        guard let offset = MemoryLayout<curl_sockaddr>.offset(of: \curl_sockaddr.addr) else { return nil }
        let raw = UnsafeRawPointer(address).advanced(by: offset)
        let length = Int(address.pointee.addrlen)
        switch address.pointee.family {
        case AF_INET where length >= MemoryLayout<sockaddr_in>.size:
            var value = raw.loadUnaligned(as: sockaddr_in.self).sin_addr
            return IPAddress(bytes: withUnsafeBytes(of: &value) { Array($0) })
        case AF_INET6 where length >= MemoryLayout<sockaddr_in6>.size:
            var value = raw.loadUnaligned(as: sockaddr_in6.self).sin6_addr
            return IPAddress(bytes: withUnsafeBytes(of: &value) { Array($0) })
        default:
            return nil
        }
    }

    /// Runs before every request, including each redirect hop and on reused connections: re-checks the URL
    /// (scheme, credentials, host allowlist) and the connected address.
    func prepareRequest(primaryIP: String) -> Int32 {
        lastActivity = .now
        let hopURL = currentURL
        // The first URL was validated before submission; only redirect hops need the check again.
        if hopURL != url, let problem = URLValidator.problem(with: hopURL, allowedHosts: policy.allowedHosts) {
            recordedFailure = problem
            return CURL_PREREQFUNC_ABORT
        }
        if policy.addresses.denialReason(for: primaryIP) != nil {
            recordedFailure = .blockedAddress(url: hopURL, ip: primaryIP)
            return CURL_PREREQFUNC_ABORT
        }
        return CURL_PREREQFUNC_OK
    }

    private var currentURL: String {
        guard let easy else { return url }
        var pointer: UnsafeMutablePointer<CChar>?
        guard richpush_easy_getinfo_string(easy, CURLINFO_EFFECTIVE_URL, &pointer) == CURLE_OK, let pointer else { return url }
        return String(cString: pointer)
    }

    // MARK: - Completion (poll thread)

    /// Resumes the waiting task. Later calls are ignored, so every path may call it.
    func finish(_ outcome: TransferOutcome) {
        guard !isFinished else { return }
        isFinished = true
        release()
        continuation?.resume(returning: outcome)
        continuation = nil
    }

    /// Translates libcurl's verdict into an outcome. Call before `release()`.
    func outcome(for code: CURLcode, now: ContinuousClock.Instant) -> TransferOutcome {
        if let recordedFailure { return .failure(TransferFailure(error: recordedFailure)) }
        guard let easy else { return .failure(TransferFailure(error: .cancelled(url: url))) }
        let reason = errorMessage.isEmpty ? String(cString: curl_easy_strerror(code)) : errorMessage
        switch code {
        case CURLE_OK:
            return .success(response(easy))
        case CURLE_OPERATION_TIMEDOUT:
            if now >= deadline - .milliseconds(20) { return .failure(TransferFailure(error: .deadlineExceeded(url: url))) }
            var connectTime: curl_off_t = 0
            _ = richpush_easy_getinfo_off_t(easy, CURLINFO_CONNECT_TIME_T, &connectTime)
            if connectTime == 0 { return .failure(TransferFailure(error: .connection(url: url, reason: "connect timed out"))) }
            return .failure(TransferFailure(error: .stalled(url: url)))
        case CURLE_TOO_MANY_REDIRECTS:
            return .failure(TransferFailure(error: .tooManyRedirects(url: url)))
        case CURLE_UNSUPPORTED_PROTOCOL:
            return .failure(TransferFailure(error: .unsupportedScheme(url: currentURL)))
        case CURLE_URL_MALFORMAT:
            return .failure(TransferFailure(error: .invalidURL(url: url)))
        case CURLE_COULDNT_RESOLVE_HOST:
            return .failure(TransferFailure(error: .dns(url: url, reason: reason)))
        case CURLE_FILESIZE_EXCEEDED:
            return .failure(TransferFailure(error: .tooLarge(url: url, limit: policy.maximumBytes)))
        case CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR:
            return .failure(TransferFailure(error: .connection(url: url, reason: reason), isRetryable: true))
        case CURLE_PARTIAL_FILE:
            return .failure(TransferFailure(error: .connection(url: url, reason: "body truncated: \(reason)")))
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_ENGINE_NOTFOUND,
             CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE,
             CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR,
             CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT:
            return .failure(TransferFailure(error: .tls(url: url, reason: reason)))
        default:
            return .failure(TransferFailure(error: .connection(url: url, reason: reason)))
        }
    }

    private func response(_ easy: UnsafeMutableRawPointer) -> TransferResponse {
        var code = 0
        _ = richpush_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &code)
        var redirects = 0
        _ = richpush_easy_getinfo_long(easy, CURLINFO_REDIRECT_COUNT, &redirects)
        func time(_ info: CURLINFO) -> Duration {
            var value: curl_off_t = 0
            _ = richpush_easy_getinfo_off_t(easy, info, &value)
            return .microseconds(value)
        }
        let timings = FetchTimings(
            nameLookup: time(CURLINFO_NAMELOOKUP_TIME_T), connect: time(CURLINFO_CONNECT_TIME_T),
            tlsHandshake: time(CURLINFO_APPCONNECT_TIME_T), firstByte: time(CURLINFO_STARTTRANSFER_TIME_T),
            total: time(CURLINFO_TOTAL_TIME_T))
        return TransferResponse(status: code, body: body, headers: headers, finalURL: currentURL,
                                redirectCount: redirects, timings: timings)
    }
}

// libcurl calls these on the poll thread (inside curl_multi_perform) with the transfer as context.

private let curlWriteCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
    data, size, count, context in
    guard let context else { return 0 }
    return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().receiveBody(data, count: size * count)
}

private let curlHeaderCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
    data, size, count, context in
    guard let context else { return 0 }
    return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().receiveHeader(data, count: size * count)
}

private let curlOpenSocketCallback: @convention(c) (UnsafeMutableRawPointer?, curlsocktype, UnsafeMutablePointer<curl_sockaddr>?) -> curl_socket_t = {
    context, purpose, address in
    guard let context, let address else { return CURL_SOCKET_BAD }
    return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().openSocket(purpose: purpose, address: address)
}

private let curlPrereqCallback: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<CChar>?, Int32, Int32) -> Int32 = {
    context, primaryIP, _, _, _ in
    guard let context, let primaryIP else { return CURL_PREREQFUNC_ABORT }
    return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().prepareRequest(primaryIP: String(cString: primaryIP))
}
