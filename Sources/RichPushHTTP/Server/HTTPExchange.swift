import CMicroHTTPD
import Foundation
import Synchronization
import RichPushCore

/// One request on one connection, from its headers to its last response byte.
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
        /// A response is queued; nothing more to do here.
        case responded
    }

    private struct State {
        var phase = Phase.receiving
        var body = Data()
        var bodyTooLarge = false
        /// Chunks of a streamed response not yet handed to libmicrohttpd, and how far into the first one it got.
        var chunks: [Data] = []
        var chunkOffset = 0
        var streamFinished = false
        /// Suspended while the handler runs on after the access-handler call that started it.
        var handlerSuspended = false
        var readerSuspended = false
        var isClosed = false
    }

    let connection: OpaquePointer
    let method: String
    let path: String
    let contentType: String?
    private let state = Mutex(State())

    init(connection: OpaquePointer, method: String, path: String, contentType: String?) {
        self.connection = connection
        self.method = method
        self.path = path
        self.contentType = contentType
    }

    /// Adds a body chunk, or marks the body too large (and drops what it had) once it passes `limit`.
    func append(_ bytes: UnsafeRawBufferPointer, limit: Int) {
        state.withLock { state in
            guard !state.bodyTooLarge else { return }
            if state.body.count + bytes.count > limit {
                state.bodyTooLarge = true
                state.body = Data()
            } else {
                state.body.append(contentsOf: bytes)
            }
        }
    }

    var bodyTooLarge: Bool { state.withLock { $0.bodyTooLarge } }

    var phase: Phase { state.withLock { $0.phase } }

    /// Moves to `handling`; returns the request to hand to the handler.
    func beginHandling() -> HTTPRequest {
        state.withLock { state in
            state.phase = .handling
            let body = state.body
            state.body = Data()
            return HTTPRequest(method: method, path: path, contentType: contentType, body: body)
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
    /// Only the first answer counts (shutdown may answer for a handler that overran its grace period).
    func answer(_ response: HTTPResponse) {
        state.withLock { state in
            guard !state.isClosed, case .handling = state.phase else { return }
            state.phase = .answered(response)
            if state.handlerSuspended {
                state.handlerSuspended = false
                MHD_resume_connection(connection)
            }
        }
    }

    func markResponded() {
        state.withLock { $0.phase = .responded }
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

    /// The request is over (answered, or the client went away): nothing may resume the connection any more.
    func close() {
        state.withLock { state in
            state.isClosed = true
            state.chunks = []
        }
    }

    var isClosed: Bool { state.withLock { $0.isClosed } }
}
