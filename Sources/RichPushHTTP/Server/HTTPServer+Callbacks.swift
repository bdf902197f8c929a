import CMicroHTTPD
import Foundation
import RichPushCore

/// libmicrohttpd's access handler: called once with the headers, once per body chunk, once when the body is
/// complete, and once more after each resume of a suspended connection.
let httpAccessHandler: MHD_AccessHandlerCallback = { context, connection, url, method, _, uploadData, uploadSize, slot in
    guard let context, let connection, let slot, let uploadSize else { return MHD_Result.NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()

    guard let existing = slot.pointee else {
        // First call: the headers only.
        let path = url.map { String(cString: $0) } ?? "/"
        let contentType = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Type").map {
            String(cString: $0).split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        }
        let exchange = HTTPExchange(
            connection: connection, method: method.map { String(cString: $0) } ?? "GET", path: path, contentType: contentType)
        slot.pointee = Unmanaged.passRetained(exchange).toOpaque()
        // A declared length over the limit is refused before a byte of the body is read.
        if let declared = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length").flatMap({ Int(String(cString: $0)) }),
           declared > server.configuration.maximumBodyBytes {
            return queue(tooLarge(server), on: exchange)
        }
        return MHD_Result.YES
    }
    let exchange = Unmanaged<HTTPExchange>.fromOpaque(existing).takeUnretainedValue()

    if uploadSize.pointee > 0 {
        if let uploadData {
            exchange.append(UnsafeRawBufferPointer(start: uploadData, count: uploadSize.pointee),
                            limit: server.configuration.maximumBodyBytes)
        }
        uploadSize.pointee = 0
        return MHD_Result.YES
    }

    switch exchange.phase {
    case .receiving:
        if exchange.bodyTooLarge { return queue(tooLarge(server), on: exchange) }
        switch server.startHandling(exchange) {
        case .answered(let response):
            return queue(response, on: exchange)
        case .suspended:
            return MHD_Result.YES
        case .saturated:
            return queue(.error(503, code: "saturated", message: "too many requests in flight; retry shortly",
                                headers: [("Retry-After", "1")]), on: exchange)
        case .stopping:
            return queue(HTTPServer.stoppingResponse, on: exchange)
        }
    case .handling, .responded:
        return MHD_Result.YES
    case .answered(let response):
        return queue(response, on: exchange)
    }
}

/// The request is over: the exchange is released and no longer counted.
let httpRequestCompleted: MHD_RequestCompletedCallback = { context, _, slot, _ in
    guard let context, let slot, let existing = slot.pointee else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    let exchange = Unmanaged<HTTPExchange>.fromOpaque(existing)
    server.finished(exchange.takeUnretainedValue())
    exchange.release()
    slot.pointee = nil
}

private func tooLarge(_ server: HTTPServer) -> HTTPResponse {
    .error(413, code: "body_too_large", message: "the request body is over the \(server.configuration.maximumBodyBytes)-byte limit (--max-body)")
}

/// Queues `response` on the exchange's connection; a streamed body is pulled from its stream by a task.
private func queue(_ response: HTTPResponse, on exchange: HTTPExchange) -> MHD_Result {
    exchange.markResponded()
    let mhdResponse: OpaquePointer?
    switch response.body {
    case .complete(let data):
        mhdResponse = data.withUnsafeBytes { raw in
            MHD_create_response_from_buffer(raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress), .RESPMEM_MUST_COPY)
        }
    case .stream(let chunks):
        let context = Unmanaged.passRetained(exchange).toOpaque()
        // UInt64.max is MHD_SIZE_UNKNOWN (a macro Swift cannot import): chunked encoding.
        mhdResponse = MHD_create_response_from_callback(UInt64.max, 32 * 1024, httpContentReader, context, httpContentReaderDone)
        if mhdResponse == nil { Unmanaged<HTTPExchange>.fromOpaque(context).release() }
        Task {
            for await chunk in chunks {
                if exchange.isClosed { break }
                exchange.appendChunk(chunk)
            }
            exchange.finishStream()
        }
    }
    guard let mhdResponse else { return MHD_Result.NO }
    defer { MHD_destroy_response(mhdResponse) }
    for header in response.headers { MHD_add_response_header(mhdResponse, header.name, header.value) }
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
