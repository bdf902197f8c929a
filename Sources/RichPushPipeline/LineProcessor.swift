import Foundation

/// Runs NDJSON through a ``DocumentProcessor``: one output line per input line, with bounded concurrency. Metrics
/// and the per-job log are the document processor's.
///
/// Memory is bounded by `concurrency` jobs in flight, the rest of the batch being started (what one read of the input
/// gave), and, in ordered mode, the finished lines waiting for a slower line before them (at most what `concurrency`
/// workers finish within one job deadline).
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

    /// What the run loop waits for: the next batch of input lines (nil at the end), or a finished job.
    private enum Event: Sendable {
        case lines([Data]?)
        case finished(line: Int, output: Data, status: JobStatus)
    }

    /// Processes every line `batches` yields until it finishes, calling `emit` once per line with its output
    /// (compact JSON, no newline). `emit` is called from one task at a time; `lineTaken` once per line as its job
    /// starts.
    ///
    /// The input comes in batches (a reader hands over every line one read gave it), so a line costs no stream hand-
    /// over and no reading task of its own: lines wait in the batch until there is room, and the next batch is read
    /// only once the last one is started. Reading the next batch and finishing a job are awaited together, so a
    /// result is written as soon as it is ready even while the input trickles in (a live pipe): a job never waits
    /// for later lines to arrive.
    package func run(
        _ batches: AsyncStream<[Data]>,
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
            // The batch being started, and the index of its next line.
            var batch: [Data] = [], batchIndex = 0
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

            // Starts the batch's lines while there is room; once it is used up, reads the next. At most one read is
            // outstanding, so the stream is never awaited from two tasks at once.
            func startLinesWhileRoom() {
                while inFlight < concurrency, batchIndex < batch.count {
                    let document = batch[batchIndex], line = nextLine
                    batchIndex += 1
                    nextLine += 1
                    inFlight += 1
                    lineTaken()
                    group.addTask {
                        // Only the bytes and status wait for earlier lines; the job results are dropped here.
                        let output = await documents.resultLine(for: document, line: line)
                        return .finished(line: line, output: output.bytes, status: output.status)
                    }
                }
                guard batchIndex == batch.count, !exhausted, !reading, inFlight < concurrency else { return }
                batch = []
                batchIndex = 0
                reading = true
                group.addTask {
                    var iterator = batches.makeAsyncIterator()
                    return .lines(await iterator.next())
                }
            }

            startLinesWhileRoom()
            while reading || inFlight > 0 {
                guard let event = await group.next() else { break }
                switch event {
                case .lines(nil):
                    reading = false
                    exhausted = true
                case .lines(let lines?):
                    reading = false
                    batch = lines
                case .finished(let line, let output, let status):
                    inFlight -= 1
                    record(line, output, status)
                }
                startLinesWhileRoom()
            }
            summary.lines = nextLine - 1
        }
        summary.milliseconds = Int((ContinuousClock.now - started) / .milliseconds(1))
        return summary
    }
}
