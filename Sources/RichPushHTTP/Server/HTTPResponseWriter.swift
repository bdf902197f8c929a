import Foundation

/// Where a streamed body (`HTTPResponse.Body.stream`) writes its chunks.
package struct HTTPResponseWriter: Sendable {
    let exchange: HTTPExchange

    /// Queues `chunk` to be sent as soon as the client takes it; dropped once the client has left. Costs one copy of
    /// the chunk until it is sent.
    package func write(_ chunk: Data) {
        exchange.appendChunk(chunk)
    }

    /// True once the server has begun to stop: finish the work already started, start no more, and say in the body
    /// what was left out, since the status line has gone already.
    package var isStopping: Bool { exchange.isStopping }
}
