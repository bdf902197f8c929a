import CCurl
import CRichPushCurl
import Foundation
import Glibc
import Synchronization
import RichPushCore

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
    var requestHeaders: UnsafeMutablePointer<curl_slist>?
    let errorBuffer: UnsafeMutablePointer<CChar>

    let cancelRequested = Atomic<Bool>(false)
    var continuation: CheckedContinuation<TransferOutcome, Never>?
    var isFinished = false
    var isAttached = false
    /// Poll-thread only: queued behind its owner's other transfers to the same host, not yet given to libcurl.
    var isWaiting = false
    /// Its owner and host, when the request has an owner (`FetchRequest.owner`).
    private(set) var ownerHostKey: OwnerHostKey?

    // Written by callbacks on the poll thread.
    var body: BodyAccumulator
    var bodyBytesSeen = 0
    var status = 0
    var headers: [String: String] = [:]
    var recordedFailure: FetchError?
    /// The cap of a media body, by the kind its first bytes show; nil for service requests (`policy.maximumBytes`).
    var byteCap: SniffedByteCap?
    /// A media body's `Content-Length`, kept until its kind (and so its cap) is known, then preallocated.
    var announcedLength: Int?
    /// Start of the current quiet period; nil until a connection exists, so queueing for a pooled connection is
    /// not mistaken for a stall.
    var lastActivity: ContinuousClock.Instant?

    var key: UInt { UInt(bitPattern: easy) }

    private let handles: EasyHandlePool

    /// Set by the poll thread when libcurl reported the transfer done (whatever its result); only then may the
    /// handle be recycled.
    var isCompletedByLibcurl = false
    private var isRecycledHandle: Bool

    convenience init(request: FetchRequest, configuration: FetchConfiguration, policy: TransferPolicy, handles: EasyHandlePool,
         buffers: BodyBufferPool) throws(FetchError) {
        try self.init(url: request.url, deadline: request.deadline, policy: policy, handles: handles, buffers: buffers)
        byteCap = SniffedByteCap(limits: configuration.byteLimits(accepting: request.acceptedKinds))
        ownerHostKey = OwnerHostKey(owner: request.owner, url: request.url)
        try configure { transfer, easy in
            transfer.configureCommon(easy, configuration: configuration)
                && transfer.configureMedia(easy, request: request, configuration: configuration)
        }
    }

    /// A transfer to a configured service: its method, headers and body, no redirects, signed when asked.
    convenience init(service request: ServiceRequest, configuration: FetchConfiguration, handles: EasyHandlePool,
         buffers: BodyBufferPool) throws(FetchError) {
        let policy = TransferPolicy(
            maximumBytes: request.maximumResponseBytes, stallTimeout: configuration.stallTimeout,
            addresses: AddressPolicy.unrestricted, allowedHosts: nil, decodesContent: false, keepsErrorBodies: true,
            expectsBody: request.method != .head)
        try self.init(url: request.url, deadline: request.deadline, policy: policy, handles: handles, buffers: buffers)
        try configure { transfer, easy in
            transfer.configureCommon(easy, configuration: configuration) && transfer.configureService(easy, request: request)
        }
    }

    private init(url: String, deadline: ContinuousClock.Instant, policy: TransferPolicy, handles: EasyHandlePool,
                 buffers: BodyBufferPool) throws(FetchError) {
        self.url = url
        self.handles = handles
        body = BodyAccumulator(pool: buffers)
        self.deadline = deadline
        self.policy = policy
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        guard let (handle, isRecycled) = handles.take() else {
            throw .internalFailure(url: url, reason: "libcurl could not allocate a transfer")
        }
        easy = handle
        isRecycledHandle = isRecycled
    }

    /// Applies the options. A recycled handle that refuses one is freed and the options are applied once more to
    /// a new handle, so a handle spoiled by an earlier transfer costs nothing; a new handle that refuses one is
    /// our configuration's fault.
    private func configure(_ apply: (CurlTransfer, UnsafeMutableRawPointer) -> Bool) throws(FetchError) {
        guard let easy else { throw .internalFailure(url: url, reason: "no libcurl handle") }
        if apply(self, easy) { return }
        let recycledRefused = isRecycledHandle
        let message = errorMessage
        discardHandle()
        if recycledRefused, let fresh = handles.takeNew() {
            errorBuffer[0] = 0
            self.easy = fresh
            isRecycledHandle = false
            if apply(self, fresh) { return }
            discardHandle()
        }
        throw .invalidConfiguration(reason: "libcurl rejected an option: \(message.isEmpty ? "no detail" : message)")
    }

    deinit {
        body.reset()
        release()
        errorBuffer.deallocate()
    }

    /// Gives the easy handle back: to the pool when libcurl completed its transfer, else freed. Must run after it
    /// left the multi handle.
    func release() {
        if let easy {
            if isCompletedByLibcurl { handles.recycle(easy) } else { handles.discard(easy) }
        }
        easy = nil
        freeRequestHeaders()
    }

    private func discardHandle() {
        if let easy { handles.discard(easy) }
        easy = nil
        freeRequestHeaders()
    }

    private func freeRequestHeaders() {
        if let requestHeaders { curl_slist_free_all(requestHeaders) }
        requestHeaders = nil
    }

    /// Options every transfer shares: deadline, stall backstop, TLS verification, no proxy, and the callbacks.
    private func configureCommon(_ handle: UnsafeMutableRawPointer, configuration: FetchConfiguration) -> Bool {
        let context = Unmanaged.passUnretained(self).toOpaque()
        let remaining = Self.milliseconds(deadline - .now, minimum: 1)
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
        set(CURLOPT_URL, url)
        set(CURLOPT_NOSIGNAL, 1)
        set(CURLOPT_PROTOCOLS_STR, "http,https")
        set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        // Waiting for a connection that might multiplex only pays off where HTTP/2 can be negotiated. For plain
        // http it makes every new transfer to a host queue behind a busy HTTP/1.1 connection, so one stalled
        // source would hold back every other source on that host until the deadline.
        set(CURLOPT_PIPEWAIT, url.lowercased().hasPrefix("https://") ? 1 : 0)
        set(CURLOPT_TIMEOUT_MS, remaining)
        set(CURLOPT_CONNECTTIMEOUT_MS, connect)
        set(CURLOPT_LOW_SPEED_LIMIT, 1)
        set(CURLOPT_LOW_SPEED_TIME, stallSeconds)
        set(CURLOPT_SSL_VERIFYPEER, 1)
        set(CURLOPT_SSL_VERIFYHOST, 2)
        if let authorities = configuration.certificateAuthorityPath { set(CURLOPT_CAINFO, authorities) }
        // An empty proxy disables http_proxy & co. from the environment: the SSRF guard must see the origin.
        set(CURLOPT_PROXY, "")
        set(CURLOPT_USERAGENT, configuration.userAgent)
        // Larger receive buffer than libcurl's 16 KiB default (the curl tool uses 100 KiB): fewer recv calls and
        // callbacks per image, at 64 KiB per in-flight transfer.
        set(CURLOPT_BUFFERSIZE, 64 * 1024)

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

    /// Untrusted media: redirects (each hop re-validated by the callbacks), the byte cap, conditional headers.
    private func configureMedia(_ handle: UnsafeMutableRawPointer, request: FetchRequest, configuration: FetchConfiguration) -> Bool {
        var ok = true
        func set(_ option: CURLoption, _ value: Int) { ok = ok && richpush_easy_setopt_long(handle, option, value) == CURLE_OK }
        set(CURLOPT_FOLLOWLOCATION, 1)
        ok = ok && richpush_easy_setopt_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https") == CURLE_OK
        set(CURLOPT_MAXREDIRS, max(0, configuration.maximumRedirects))
        if configuration.acceptEncoding {
            ok = ok && richpush_easy_setopt_string(handle, CURLOPT_ACCEPT_ENCODING, "") == CURLE_OK
        } else if let ceiling = byteCap?.ceiling, ceiling > 0 {
            // The largest accepted kind's cap; the write callback applies the body's own kind's cap.
            ok = ok && richpush_easy_setopt_off_t(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(ceiling)) == CURLE_OK
        }

        if let tag = request.ifNoneMatch { requestHeaders = curl_slist_append(requestHeaders, "If-None-Match: \(Self.headerSafe(tag))") }
        if let date = request.ifModifiedSince {
            requestHeaders = curl_slist_append(requestHeaders, "If-Modified-Since: \(Self.headerSafe(date))")
        }
        if let requestHeaders { ok = ok && richpush_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, requestHeaders) == CURLE_OK }
        return ok
    }

    /// A configured service: the method, the body (copied by libcurl), the headers, and SigV4 signing by libcurl.
    private func configureService(_ handle: UnsafeMutableRawPointer, request: ServiceRequest) -> Bool {
        var ok = true
        func set(_ option: CURLoption, _ value: Int) { ok = ok && richpush_easy_setopt_long(handle, option, value) == CURLE_OK }
        func set(_ option: CURLoption, _ value: String) { ok = ok && richpush_easy_setopt_string(handle, option, value) == CURLE_OK }

        switch request.method {
        case .get: break
        case .head: set(CURLOPT_NOBODY, 1)
        case .delete: set(CURLOPT_CUSTOMREQUEST, "DELETE")
        case .put, .post:
            ok = ok && richpush_easy_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count)) == CURLE_OK
            // COPYPOSTFIELDS copies the bytes (the size must be set first), so the transfer owns no upload buffer.
            request.body.withUnsafeBytes { raw in
                if let bytes = raw.baseAddress, raw.count > 0 {
                    ok = ok && richpush_easy_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes)) == CURLE_OK
                } else {
                    set(CURLOPT_COPYPOSTFIELDS, "")
                }
            }
            if request.method == .put { set(CURLOPT_CUSTOMREQUEST, "PUT") }
        }

        // No "Expect:" override here: libcurl 7.88 would sign the removed header as if it were sent.
        var lines = request.headers.map { "\(Self.headerSafe($0.name)): \(Self.headerSafe($0.value))" }
        if let signing = request.signing {
            set(CURLOPT_AWS_SIGV4, signing.curlParameter)
            set(CURLOPT_USERNAME, signing.accessKeyID)
            set(CURLOPT_PASSWORD, signing.secretAccessKey)
            // S3 requires the payload hash header, and libcurl signs a header it finds already set.
            lines.append("x-amz-content-sha256: \(request.bodySHA256 ?? SHA256.hexDigest(of: request.body))")
            if let token = signing.sessionToken { lines.append("x-amz-security-token: \(Self.headerSafe(token))") }
        }
        for line in lines { requestHeaders = curl_slist_append(requestHeaders, line) }
        if let requestHeaders { ok = ok && richpush_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, requestHeaders) == CURLE_OK }
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

    var errorMessage: String { String(cString: errorBuffer) }

}
