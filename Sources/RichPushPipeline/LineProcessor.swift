import Foundation

/// Runs NDJSON through a ``DocumentProcessor``: one output line per input line, with bounded concurrency. Metrics
/// and the per-job log are the document processor's.
///
/// Memory is bounded by `concurrency` jobs in flight plus, in ordered mode, the finished lines waiting
/// for a slower line before them (at most what `concurrency` workers finish within one job deadline).
package struct LineProcessor: Sendable {
    /// Counts of what a run produced, for the summary on stderr.
    package struct Summary: Sendable {
        package var lines = 0
        package var statuses: [JobStatus: Int] = [:]
        package var milliseconds = 0
    }

    package let documents: DocumentProcessor
    package let concurrency: Int
    package let ordered: Bool

    package init(documents: DocumentProcessor, concurrency: Int = 16, ordered: Bool = true) {
        self.documents = documents
        self.concurrency = max(1, concurrency)
        self.ordered = ordered
    }

    /// Lines through `enricher` alone: nothing counted, nothing logged.
    package init(enricher: Enricher, concurrency: Int = 16, ordered: Bool = true) {
        self.init(documents: DocumentProcessor(enricher: enricher), concurrency: concurrency, ordered: ordered)
    }

    /// What the run loop waits for: the next input line (nil at the end), or a finished job.
    private enum Event: Sendable {
        case line(Data?)
        case finished(line: Int, output: Data, status: JobStatus)
    }

    /// Processes every line `lines` yields until it finishes, calling `emit` once per line with its output
    /// (compact JSON, no newline). `emit` is called from one task at a time.
    ///
    /// Reading the next line and finishing a job are awaited together, so a result is written as soon as it is
    /// ready even while the input trickles in (a live pipe): a job never waits for later lines to arrive.
    package func run(
        _ lines: AsyncStream<Data>,
        lineTaken: @Sendable () -> Void = {},
        emit: (Data, JobStatus) -> Void
    ) async -> Summary {
        let started = ContinuousClock.now
        var summary = Summary()
        await withTaskGroup(of: Event.self) { group in
            var nextLine = 1
            var inFlight = 0
            var nextToEmit = 1
            var waiting: [Int: (Data, JobStatus)] = [:]
            var exhausted = false
            var reading = false

            func record(_ line: Int, _ output: Data, _ status: JobStatus) {
                summary.statuses[status, default: 0] += 1
                guard ordered else {
                    emit(output, status)
                    return
                }
                waiting[line] = (output, status)
                while let ready = waiting.removeValue(forKey: nextToEmit) {
                    emit(ready.0, ready.1)
                    nextToEmit += 1
                }
            }

            // At most one read is outstanding, so the stream is never awaited from two tasks at once.
            func readNextLineIfRoom() {
                guard !exhausted, !reading, inFlight < concurrency else { return }
                reading = true
                group.addTask {
                    var iterator = lines.makeAsyncIterator()
                    return .line(await iterator.next())
                }
            }

            readNextLineIfRoom()
            while reading || inFlight > 0 {
                guard let event = await group.next() else { break }
                switch event {
                case .line(nil):
                    reading = false
                    exhausted = true
                case .line(let document?):
                    reading = false
                    lineTaken()
                    let line = nextLine
                    nextLine += 1
                    inFlight += 1
                    group.addTask {
                        // Only the bytes and status wait for earlier lines; the job results are dropped here.
                        let output = await documents.resultLine(for: document, line: line)
                        return .finished(line: line, output: output.bytes, status: output.status)
                    }
                case .finished(let line, let output, let status):
                    inFlight -= 1
                    record(line, output, status)
                }
                readNextLineIfRoom()
            }
            summary.lines = nextLine - 1
        }
        summary.milliseconds = Int((ContinuousClock.now - started) / .milliseconds(1))
        return summary
    }
}
