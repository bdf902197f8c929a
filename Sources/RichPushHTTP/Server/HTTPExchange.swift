import CMicroHTTPD
import Foundation
import Glibc
import Synchronization

/// One request on one connection, from its headers to its last response byte and the end of its work.
///
/// libmicrohttpd calls in on its polling threads; the handler's task answers either inline on that thread or later
/// from the pool. The state lives behind a `Mutex`, and every suspend happens under that lock, so a resume from the
/// other side can never come before the suspend it answers (which libmicrohttpd would ignore, leaving the
/// connection parked forever).
final class HTTPExchange: @unchecked Sendable {
    enum Phase {
        /// Headers seen; body chunks arriving.
        case receiving
        /// The handler runs; once it waits, the connection is suspended until it answers.
        case handling
        /// The handler answered; queued on the next access-handler call.
        case answered(HTTPResponse)
        /// A response is queued, or the request was refused mid-body; nothing more to do here.
        case responded
    }

    private struct State {
        var phase = Phase.receiving
        var body = Data()
        /// A refusal was written straight to the socket and the connection is being closed.
        var isRefused = false
        /// Chunks of a streamed response not yet handed to libmicrohttpd, and how far into the first one it got.
        var chunks: [Data] = []
        var chunkOffset = 0
        var streamFinished = false
        /// Suspended while the handler runs on after the access-handler call that started it.
        var handlerSuspended = false
        var readerSuspended = false
        /// libmicrohttpd is done with the request (answered, or the client went away): nothing may resume the
        /// connection or touch its socket any more.
        var isClosed = false
        /// The task running the handler and a streamed body; nil until admitted.
        var work: Task<Void, Never>?
        var workEnded = false
        var isStopping = false
        /// The status of the response queued or written; nil while none was.
        var status: Int?
    }

    let connection: OpaquePointer
    /// The connection's socket, used only while libmicrohttpd cannot close it (before `close`).
    let socket: Int32
    let method: String
    let path: String
    let contentType: String?
    let authorization: String?
    /// When the headers arrived, from which the request's duration counts.
    let started = ContinuousClock.now
    /// When the whole body must have arrived.
    let bodyDeadline: ContinuousClock.Instant
    private let state = Mutex(State())

    init(connection: OpaquePointer, socket: Int32, method: String, path: String, contentType: String?,
         authorization: String?, bodyDeadline: ContinuousClock.Instant) {
        self.connection = connection
        self.socket = socket
        self.method = method
        self.path = path
        self.contentType = contentType
        self.authorization = authorization
        self.bodyDeadline = bodyDeadline
    }

    /// Adds a body chunk; false (and the body dropped) once it would pass `limit`. Chunks after a refusal (read
    /// before libmicrohttpd saw the shutdown) are dropped.
    func append(_ bytes: UnsafeRawBufferPointer, limit: Int) -> Bool {
        state.withLock { state in
            guard !state.isRefused else { return true }
            guard state.body.count + bytes.count <= limit else {
                state.body = Data()
                return false
            }
            state.body.append(contentsOf: bytes)
            return true
        }
    }

    /// Writes `response` straight to the socket and shuts the socket down, while the body is still arriving (when
    /// libmicrohttpd can queue no response: it reads the shutdown as the client's end and closes the connection).
    /// Best effort: a client that reads nothing may not get it. Once only, and never after handling began.
    func refuse(with response: HTTPResponse, reason: String) {
        state.withLock { state in
            guard case .receiving = state.phase, !state.isRefused, !state.isClosed else { return }
            state.isRefused = true
            state.phase = .responded
            state.status = response.status
            state.body = Data()
            let bytes = response.closingWireBytes(reason: reason)
            _ = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            Glibc.shutdown(socket, shutReadWrite)
        }
    }

    var isRefused: Bool { state.withLock { $0.isRefused } }

    var phase: Phase { state.withLock { $0.phase } }

    /// Moves to `handling`; returns the request to hand to the handler.
    func beginHandling() -> HTTPRequest {
        state.withLock { state in
            state.phase = .handling
            let body = state.body
            state.body = Data()
            return HTTPRequest(method: method, path: path, contentType: contentType, authorization: authorization, body: body)
        }
    }

    /// The handler's answer if it already came (it ran inline); otherwise suspends the connection until it does.
    func answerOrSuspend() -> HTTPResponse? {
        state.withLock { state in
            if case .answered(let response) = state.phase { return response }
            state.handlerSuspended = true
            MHD_suspend_connection(connection)
            return nil
        }
    }

    /// The handler's answer: stored, and the connection resumed if it was suspended, so libmicrohttpd asks for it.
    /// Only the first answer counts (shutdown may answer for a handler that overran its grace period); returns
    /// whether this one did.
    @discardableResult
    func answer(_ response: HTTPResponse) -> Bool {
        state.withLock { state in
            guard !state.isClosed, case .handling = state.phase else { return false }
            state.phase = .answered(response)
            if state.handlerSuspended {
                state.handlerSuspended = false
                MHD_resume_connection(connection)
            }
            return true
        }
    }

    func markResponded(status: Int) {
        state.withLock { state in
            state.phase = .responded
            state.status = status
        }
    }

    /// The status of the response queued or written; nil when the request ended without one (the client left).
    var status: Int? { state.withLock { $0.status } }

    // MARK: Work

    func setWork(_ task: Task<Void, Never>) {
        state.withLock { $0.work = task }
    }

    /// The work has returned; true when the request is over too, so it no longer counts as in flight.
    func workDidEnd() -> Bool {
        state.withLock { state in
            state.workEnded = true
            return state.isClosed
        }
    }

    /// The work, to await or cancel; nil when it has ended or never started.
    var runningWork: Task<Void, Never>? {
        state.withLock { $0.workEnded ? nil : $0.work }
    }

    func beginStopping() {
        state.withLock { $0.isStopping = true }
    }

    var isStopping: Bool { state.withLock { $0.isStopping } }

    /// The client closed its end while the connection is suspended (where libmicrohttpd does not look at the
    /// socket): returns the work to cancel. Half-closing counts as leaving, as it does for most HTTP servers.
    func workOfDepartedClient() -> Task<Void, Never>? {
        state.withLock { state in
            guard !state.isClosed, !state.workEnded, state.handlerSuspended || state.readerSuspended else { return nil }
            var descriptor = pollfd(fd: socket, events: pollReadHangUp, revents: 0)
            guard poll(&descriptor, 1, 0) == 1,
                  descriptor.revents & (pollReadHangUp | Int16(POLLHUP) | Int16(POLLERR)) != 0 else { return nil }
            return state.work
        }
    }

    /// libmicrohttpd is done with the request: nothing may resume the connection any more. Returns whether the work
    /// has ended too (or never started), and the work to cancel when the request ended `abnormally`.
    func requestDidComplete(abnormally: Bool) -> (isOver: Bool, cancel: Task<Void, Never>?) {
        state.withLock { state in
            state.isClosed = true
            state.chunks = []
            let isOver = state.workEnded || state.work == nil
            return (isOver, abnormally && !isOver ? state.work : nil)
        }
    }

    // MARK: Streamed bodies

    /// Queues a chunk of a streamed body and wakes the reader if it waits for one.
    func appendChunk(_ chunk: Data) {
        state.withLock { state in
            guard !state.isClosed, !chunk.isEmpty else { return }
            state.chunks.append(chunk)
            wakeReader(&state)
        }
    }

    func finishStream() {
        state.withLock { state in
            state.streamFinished = true
            wakeReader(&state)
        }
    }

    private func wakeReader(_ state: inout State) {
        guard state.readerSuspended, !state.isClosed else { return }
        state.readerSuspended = false
        MHD_resume_connection(connection)
    }

    /// libmicrohttpd's content reader: copies what is queued, ends the stream, or suspends until more arrives.
    func read(into buffer: UnsafeMutablePointer<CChar>, maximum: Int) -> Int {
        state.withLock { state in
            if let first = state.chunks.first {
                let count = min(maximum, first.count - state.chunkOffset)
                first.withUnsafeBytes { raw in
                    UnsafeMutableRawPointer(buffer).copyMemory(from: raw.baseAddress! + state.chunkOffset, byteCount: count)
                }
                state.chunkOffset += count
                if state.chunkOffset == first.count {
                    state.chunks.removeFirst()
                    state.chunkOffset = 0
                }
                return count
            }
            if state.streamFinished { return -1 }   // MHD_CONTENT_READER_END_OF_STREAM
            state.readerSuspended = true
            MHD_suspend_connection(connection)
            return 0
        }
    }

    var isClosed: Bool { state.withLock { $0.isClosed } }
}

/// glibc's SHUT_RDWR and POLLRDHUP (the second needs _GNU_SOURCE), which Swift does not import.
let shutReadWrite: Int32 = 2
let pollReadHangUp: Int16 = 0x2000
