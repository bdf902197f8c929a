import CMicroHTTPD
import Foundation
import RichPushCore

/// The server behind a callback's context, borrowed without a retain. A callback must never hold a reference of
/// its own: were it the last one, the server's deinit would stop the daemon on the daemon's own thread, and
/// libmicrohttpd aborts when a thread joins itself ("Failed to join a thread"). The borrow is safe because deinit
/// stops the daemon, which waits for every callback to return, before the server's storage goes.
private func withServer<Result>(_ context: UnsafeMutableRawPointer, _ body: (HTTPServer) -> Result) -> Result {
    Unmanaged<HTTPServer>.fromOpaque(context)._withUnsafeGuaranteedRef(body)
}

/// libmicrohttpd's access handler: called once with the headers, once per body chunk, once when the body is
/// complete, and once more after each resume of a suspended connection.
let httpAccessHandler: MHD_AccessHandlerCallback = { context, connection, url, method, _, uploadData, uploadSize, slot in
    guard let context, let connection, let slot, let uploadSize else { return MHD_Result.NO }
    return withServer(context) { server in
        access(server, connection: connection, url: url, method: method, uploadData: uploadData, uploadSize: uploadSize,
               slot: slot)
    }
}

private func access(_ server: HTTPServer, connection: OpaquePointer, url: UnsafePointer<CChar>?,
                    method: UnsafePointer<CChar>?, uploadData: UnsafePointer<CChar>?,
                    uploadSize: UnsafeMutablePointer<Int>,
                    slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {

    guard let existing = slot.pointee else {
        // First call: the headers only.
        let exchange = HTTPExchange(
            connection: connection, socket: server.connections.socket(of: connection),
            method: method.map { String(cString: $0) } ?? "GET", path: url.map { String(cString: $0) } ?? "/",
            contentType: MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Type").map {
                HTTPRequest.mediaType(ofContentType: String(cString: $0))
            },
            authorization: MHD_lookup_connection_value(connection, .HEADER_KIND, "Authorization").map { String(cString: $0) },
            bodyDeadline: .now + server.configuration.bodyTimeout)
        slot.pointee = Unmanaged.passRetained(exchange).toOpaque()
        // The sweep cut this connection for overdue headers just as they arrived.
        guard server.connections.requestStarted(on: connection, exchange) else { return MHD_Result.NO }
        // A declared length over the limit is refused before a byte of the body is read.
        if let declared = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length").flatMap({ Int(String(cString: $0)) }),
           declared > server.configuration.maximumBodyBytes {
            return queue(server.tooLargeResponse, on: exchange, closing: true)
        }
        return MHD_Result.YES
    }
    let exchange = Unmanaged<HTTPExchange>.fromOpaque(existing).takeUnretainedValue()

    if uploadSize.pointee > 0 {
        // libmicrohttpd can queue no response until the body has ended, so a refusal here is written straight to
        // the socket and the connection closed (MHD_NO): an endless body stops being read at once.
        if ContinuousClock.now > exchange.bodyDeadline {
            exchange.refuse(with: server.bodyTimeoutResponse, reason: "Request Timeout")
            return MHD_Result.NO
        }
        guard let uploadData,
              exchange.append(UnsafeRawBufferPointer(start: uploadData, count: uploadSize.pointee),
                              limit: server.configuration.maximumBodyBytes) else {
            exchange.refuse(with: server.tooLargeResponse, reason: "Content Too Large")
            return MHD_Result.NO
        }
        uploadSize.pointee = 0
        return MHD_Result.YES
    }

    switch exchange.phase {
    case .receiving:
        switch server.startHandling(exchange) {
        case .answered(let response):
            return queue(response, on: exchange, closing: server.isStopping)
        case .suspended:
            return MHD_Result.YES
        case .saturated:
            return queue(.error(503, code: .saturated, message: "too many requests in flight; retry shortly",
                                headers: [("Retry-After", "1")]), on: exchange, closing: false)
        case .stopping:
            return queue(HTTPServer.stoppingResponse, on: exchange, closing: true)
        }
    case .handling:
        return MHD_Result.YES
    case .responded:
        // Refused mid-body: the connection is being closed.
        return exchange.isRefused ? MHD_Result.NO : MHD_Result.YES
    case .answered(let response):
        return queue(response, on: exchange, closing: server.isStopping)
    }
}

/// The request is over (answered, or the client went away): the exchange is released, and its work cancelled
/// unless it was answered whole.
let httpRequestCompleted: MHD_RequestCompletedCallback = { context, _, slot, termination in
    guard let context, let slot, let existing = slot.pointee else { return }
    let exchange = Unmanaged<HTTPExchange>.fromOpaque(existing)
    withServer(context) { server in
        server.requestCompleted(exchange.takeUnretainedValue(), normally: termination == .REQUEST_TERMINATED_COMPLETED_OK)
    }
    exchange.release()
    slot.pointee = nil
}

/// A connection opened or closed: kept in the registry the sweep walks.
let httpConnectionNotified: MHD_NotifyConnectionCallback = { context, connection, _, notification in
    guard let context, let connection else { return }
    withServer(context) { server in
        if notification == .CONNECTION_NOTIFY_STARTED {
            server.connections.opened(connection)
        } else {
            server.connections.closed(connection)
        }
    }
}

/// Queues `response` on the exchange's connection, with `Connection: close` when `closing` (during shutdown, so a
/// keep-alive client sends nothing more on it); a streamed body is pulled from the exchange's chunks.
private func queue(_ response: HTTPResponse, on exchange: HTTPExchange, closing: Bool) -> MHD_Result {
    exchange.markResponded(status: response.status)
    let mhdResponse: OpaquePointer?
    switch response.body {
    case .complete(let data):
        mhdResponse = data.withUnsafeBytes { raw in
            MHD_create_response_from_buffer(raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress), .RESPMEM_MUST_COPY)
        }
    case .stream:
        let context = Unmanaged.passRetained(exchange).toOpaque()
        // UInt64.max is MHD_SIZE_UNKNOWN (a macro Swift cannot import): chunked encoding.
        mhdResponse = MHD_create_response_from_callback(UInt64.max, 32 * 1024, httpContentReader, context, httpContentReaderDone)
        if mhdResponse == nil { Unmanaged<HTTPExchange>.fromOpaque(context).release() }
    }
    guard let mhdResponse else { return MHD_Result.NO }
    defer { MHD_destroy_response(mhdResponse) }
    for header in response.headers { MHD_add_response_header(mhdResponse, header.name, header.value) }
    if closing, !response.headers.contains(where: { $0.name.lowercased() == "connection" }) {
        MHD_add_response_header(mhdResponse, "Connection", "close")
    }
    return MHD_queue_response(exchange.connection, UInt32(response.status), mhdResponse)
}

private let httpContentReader: MHD_ContentReaderCallback = { context, _, buffer, maximum in
    guard let context, let buffer else { return -2 }
    let exchange = Unmanaged<HTTPExchange>.fromOpaque(context).takeUnretainedValue()
    return exchange.read(into: buffer, maximum: maximum)
}

private let httpContentReaderDone: MHD_ContentReaderFreeCallback = { context in
    guard let context else { return }
    Unmanaged<HTTPExchange>.fromOpaque(context).release()
}
