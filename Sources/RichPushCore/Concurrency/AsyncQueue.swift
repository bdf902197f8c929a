import Synchronization

/// An unbounded first-in, first-out hand-over between tasks: any number of producers, one consumer.
///
/// The consumer takes one element (`next`) or everything queued (`nextBatch`), and never suspends when something is
/// already there: a suspension queues the task again behind the others even when it is resumed at once. One producer
/// may wait for the queue to drain to a low-water mark (`waitUntilCount(atMost:)`), which makes it a bounded
/// prefetch buffer. Used by the Redis consumer between its reader, its job launcher and its writer.
///
/// Cost: one lock per operation; elements are held in an array (a removal from the front is O(count), and counts
/// stay at a page of entries).
package final class AsyncQueue<Element: Sendable>: Sendable {
    private enum Consumer {
        case one(CheckedContinuation<Element?, Never>)
        case all(CheckedContinuation<[Element]?, Never>)
    }

    private struct State {
        var elements: [Element] = []
        var finished = false
        var consumer: Consumer?
        var producer: (limit: Int, continuation: CheckedContinuation<Int, Never>)?
    }

    private let state = Mutex(State())

    package init() {}

    /// Elements queued right now.
    package var count: Int { state.withLock { $0.elements.count } }

    /// Whether the consumer waits for an element right now (tests wait for this instead of sleeping).
    var isConsumerWaiting: Bool { state.withLock { $0.consumer != nil } }

    /// Whether a producer waits for the queue to drain to its mark right now (tests wait for this instead of sleeping).
    var isProducerWaiting: Bool { state.withLock { $0.producer != nil } }

    package func append(_ element: Element) {
        append(contentsOf: CollectionOfOne(element))
    }

    /// Appends `elements` in order, handing them to a waiting consumer at once.
    package func append(contentsOf elements: some Sequence<Element>) {
        let wake: (() -> Void)? = state.withLock { state in
            state.elements.append(contentsOf: elements)
            return state.elements.isEmpty ? nil : Self.serveConsumer(&state)
        }
        wake?()
    }

    /// No more appends will come: the consumer gets nil once everything was taken.
    package func finish() {
        let wake: (() -> Void)? = state.withLock { state in
            state.finished = true
            return Self.serveConsumer(&state)
        }
        wake?()
    }

    /// The next element in order, waiting for one; nil when finished and drained. One caller at a time.
    package func next() async -> Element? {
        if let ready = take({ state in state.elements.isEmpty ? nil : [state.elements.removeFirst()] }) { return ready.first }
        return await withCheckedContinuation { continuation in
            park(.one(continuation))
        }
    }

    /// Everything queued, waiting for at least one element; nil when finished and drained. One caller at a time.
    package func nextBatch() async -> [Element]? {
        if let ready = take({ state in state.elements.isEmpty ? nil : state.elements.takeAll() }) { return ready }
        return await withCheckedContinuation { continuation in
            park(.all(continuation))
        }
    }

    /// Everything queued right now, without waiting.
    package func takeAvailable() -> [Element] {
        take { state in state.elements.takeAll() } ?? []
    }

    /// Returns, with the count then, once at most `limit` elements are queued; at once when that is already so. One
    /// caller at a time.
    package func waitUntilCount(atMost limit: Int) async -> Int {
        await withCheckedContinuation { continuation in
            let ready: Int? = state.withLock { state in
                if state.elements.count <= limit { return state.elements.count }
                state.producer = (limit, continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Takes what `removal` removes (nil: nothing), waking the waiting producer if the queue reached its mark.
    private func take(_ removal: (inout State) -> [Element]?) -> [Element]? {
        let (taken, wake): ([Element]?, (() -> Void)?) = state.withLock { state in
            let taken = removal(&state)
            return (taken, taken == nil ? nil : Self.serveProducer(&state))
        }
        wake?()
        return taken
    }

    /// Parks the consumer, or serves it at once when something arrived (or the queue finished) meanwhile.
    private func park(_ consumer: Consumer) {
        let wake: (() -> Void)? = state.withLock { state in
            state.consumer = consumer
            return Self.serveConsumer(&state)
        }
        wake?()
    }

    /// The resumption owed to a parked consumer, if it can be served now (run it outside the lock), and then the one
    /// owed to the producer if the take brought the queue to its mark.
    private static func serveConsumer(_ state: inout State) -> (() -> Void)? {
        guard let consumer = state.consumer, !state.elements.isEmpty || state.finished else { return nil }
        state.consumer = nil
        let resumeConsumer: () -> Void
        switch consumer {
        case .one(let continuation):
            let element = state.elements.isEmpty ? nil : state.elements.removeFirst()
            resumeConsumer = { continuation.resume(returning: element) }
        case .all(let continuation):
            let elements = state.elements.isEmpty ? nil : state.elements.takeAll()
            resumeConsumer = { continuation.resume(returning: elements) }
        }
        let wakeProducer = serveProducer(&state)
        return {
            resumeConsumer()
            wakeProducer?()
        }
    }

    /// The resumption owed to the waiting producer, if the queue is at or below its mark.
    private static func serveProducer(_ state: inout State) -> (() -> Void)? {
        guard let producer = state.producer, state.elements.count <= producer.limit else { return nil }
        state.producer = nil
        let count = state.elements.count
        return { producer.continuation.resume(returning: count) }
    }
}

private extension Array {
    /// Removes and returns every element.
    mutating func takeAll() -> [Element] {
        defer { self = [] }
        return self
    }
}
